#include "core/TaskEval.h"

#include "core/ModelImpl.h"

#include <torch/torch.h>

#include <random>

// Shapes: B batch, S source length, t answer so far, C channels.

namespace core {

namespace {

// The answer's text up to <eos>, through the tokenizer (SentencePiece joins its pieces into words). A
// special token inside an answer stays in it as its name, so such an answer never counts as right.
std::string spell(const Tokenizer& tokenizer, const int64_t* ids, int64_t n) {
    const auto& vocab = tokenizer.vocab();
    std::string text;
    std::vector<int64_t> run;
    for (int64_t j = 0; j < n && ids[j] != vocab.eos() && ids[j] != vocab.pad(); ++j) {
        if (vocab.isSpecial(ids[j])) {
            text += tokenizer.detokenize(run) + vocab.token(ids[j]);
            run.clear();
        } else {
            run.push_back(ids[j]);
        }
    }
    return text + tokenizer.detokenize(run);
}

} // namespace

std::vector<std::string> greedyAnswers(const Model& model, const std::vector<std::string>& sources,
                                       int maxAnswer) {
    auto& m = model.impl();
    torch::NoGradGuard noGrad;
    const auto& vocab = m.tgtTokenizer->vocab();
    const auto bos = vocab.bos(), eos = vocab.eos(), pad = vocab.pad();
    std::vector<std::vector<int64_t>> prompts;
    const auto& srcTok = m.srcTokenizer ? *m.srcTokenizer : *m.tgtTokenizer;
    for (const auto& s : sources) {
        std::vector<int64_t> row{bos};
        for (const auto& t : srcTok.tokenize(s))
            row.push_back(t.id);
        row.push_back(eos);
        prompts.push_back(std::move(row));
    }
    std::vector<std::string> out(sources.size());
    constexpr std::size_t kChunk = 500;
    for (std::size_t start = 0; start < prompts.size(); start += kChunk) {
        const std::size_t end = std::min(prompts.size(), start + kChunk);
        if (!m.config.hasEncoder()) {
            // Left to right one prompt at a time: padding inside a causal prompt would shift its answer.
            for (std::size_t i = start; i < end; ++i) {
                auto seq = torch::tensor(prompts[i], torch::kLong).unsqueeze(0); // (1, P)
                const int64_t p0 = seq.size(1);
                for (int step = 0; step < maxAnswer && seq.size(1) < m.config.maxLen; ++step) {
                    const auto h = m.net->decode(seq, {}, {}, nn::targetMask(seq, pad), 0, nullptr, nullptr);
                    const auto next =
                        m.net->generator->logits(h.narrow(1, h.size(1) - 1, 1)).argmax(-1); // (1, 1)
                    seq = torch::cat({seq, next}, 1);
                    if (next.item<int64_t>() == eos)
                        break;
                }
                const auto row = seq.contiguous();
                out[i] = spell(*m.tgtTokenizer, row.data_ptr<int64_t>() + p0, row.size(1) - p0);
            }
            continue;
        }
        const auto src = paddedIds({prompts.begin() + static_cast<std::ptrdiff_t>(start),
                                    prompts.begin() + static_cast<std::ptrdiff_t>(end)},
                                   m.srcPad());                   // (B, S)
        const auto srcMask = nn::sourceMask(src, m.srcPad());     // (B, 1, S)
        const auto memory = m.net->encode(src, srcMask, nullptr); // (B, S, C)
        // One new token per row and step through the KV cache: recomputing the whole prefix each step made a
        // long answer quadratic. A finished row keeps receiving <pad>; its output is no longer read.
        nn::DecodeCache cache;
        auto last = torch::full({src.size(0), 1}, bos, torch::kLong); // (B, 1)
        std::vector<torch::Tensor> columns{last};
        auto finished = torch::zeros({src.size(0)}, torch::kBool); // (B)
        for (int step = 0; step < maxAnswer && step + 1 < m.config.maxLen; ++step) {
            const auto h =
                m.net->decode(last, memory, srcMask, torch::Tensor(), step, &cache, nullptr); // (B, 1, C)
            auto next = m.net->generator->logits(h).argmax(-1);                               // (B, 1)
            next = next.masked_fill(finished.unsqueeze(1), pad);
            columns.push_back(next);
            last = next;
            finished = finished | (next.squeeze(1) == eos);
            if (finished.all().item<bool>())
                break;
        }
        const auto ys = torch::cat(columns, 1).contiguous(); // (B, t+1)
        for (int64_t i = 0; i < ys.size(0); ++i)
            out[start + static_cast<std::size_t>(i)] =
                spell(*m.tgtTokenizer, ys[i].data_ptr<int64_t>() + 1, ys.size(1) - 1);
    }
    return out;
}

std::vector<Example> evaluationExamples(const Task& task, int n, uint64_t seed) {
    // A stream of its own, so evaluation never draws the training stream's examples by construction.
    std::mt19937_64 rng(seed ^ 0xE7A1E7A1E7A1E7A1ull);
    std::vector<Example> examples(static_cast<std::size_t>(std::max(n, 0)));
    for (auto& e : examples)
        e = task.sample(rng);
    return examples;
}

double taskAccuracy(const Model& model, const Task& task, int n, uint64_t seed) {
    const auto examples = evaluationExamples(task, n, seed);
    std::vector<std::string> sources;
    for (const auto& e : examples)
        sources.push_back(e.source);
    const auto answers = greedyAnswers(model, sources, task.maxTargetLength() + 1);
    int correct = 0;
    for (std::size_t i = 0; i < examples.size(); ++i)
        correct += answers[i] == examples[i].target ? 1 : 0;
    return examples.empty() ? 0.0 : static_cast<double>(correct) / static_cast<double>(examples.size());
}

} // namespace core
