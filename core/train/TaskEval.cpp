#include "core/train/TaskEval.h"

#include "core/run/DecoderFactory.h"
#include "core/run/IncrementalDecoder.h"
#include "core/run/StepDecoder.h"

#include <algorithm>
#include <map>
#include <memory>
#include <random>

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

int64_t mostLikely(const std::vector<float>& logProbs) {
    return std::max_element(logProbs.begin(), logProbs.end()) - logProbs.begin();
}

// A recurrent decoder reads one sentence at a time (its steps are cheap: one GRU cell and the output layer).
std::vector<std::vector<int64_t>> recurrentAnswers(const std::shared_ptr<const Model>& model,
                                                   const std::vector<std::vector<int64_t>>& prompts,
                                                   int maxAnswer, const AnswerProgress& progress) {
    const auto& vocab = model->targetTokenizer().vocab();
    std::vector<std::vector<int64_t>> out;
    for (const auto& src : prompts) {
        auto decoder = startDecoder(model, src);
        auto step = decoder->push({vocab.bos()});
        auto& answer = out.emplace_back();
        while (static_cast<int>(answer.size()) < maxAnswer && decoder->length() < model->config().maxLen) {
            answer.push_back(mostLikely(step.logProbs));
            if (answer.back() == vocab.eos())
                break;
            step = decoder->push({answer.back()});
        }
        if (progress)
            progress(out.size(), prompts.size());
    }
    return out;
}

} // namespace

std::vector<std::string> classifyTexts(const Model& model, const std::vector<std::string>& texts,
                                       const AnswerProgress& progress) {
    const std::shared_ptr<const Model> shared(&model, [](const Model*) {}); // the caller keeps it alive
    const auto& classes = model.targetTokenizer().vocab();
    std::vector<std::string> out;
    for (const auto& text : texts) {
        auto tokens = model.sourceTokens(text);
        if (static_cast<int>(tokens.size()) > model.config().maxLen)
            tokens.resize(static_cast<std::size_t>(model.config().maxLen)); // read as far as the window reads
        std::vector<int64_t> ids;
        for (const auto& t : tokens)
            ids.push_back(t.id);
        auto decoder = startDecoder(shared, ids);
        out.push_back(classes.token(mostLikely(decoder->push({classes.bos()}).logProbs)));
        if (progress)
            progress(out.size(), texts.size());
    }
    return out;
}

std::vector<std::string> greedyAnswers(const Model& model, const std::vector<std::string>& sources,
                                       int maxAnswer, const AnswerProgress& progress) {
    // A shared_ptr that does not own: the decoder keeps the model alive, and here the caller does.
    const std::shared_ptr<const Model> shared(&model, [](const Model*) {});
    const auto& vocab = model.targetTokenizer().vocab();
    const auto bos = vocab.bos(), eos = vocab.eos(), pad = vocab.pad();
    const bool enc = model.config().hasEncoder();
    // The source as in training: <bos> source <eos>; a decoder-only model reads that as its prompt and
    // answers after it.
    std::vector<std::vector<int64_t>> prompts;
    for (const auto& s : sources) {
        std::vector<int64_t> row;
        for (const auto& t : model.sourceTokens(s))
            row.push_back(t.id);
        if (!enc)
            row.push_back(eos);
        prompts.push_back(std::move(row));
    }
    if (model.config().recurrent()) {
        std::vector<std::string> out;
        for (const auto& answer : recurrentAnswers(shared, prompts, maxAnswer, progress))
            out.push_back(spell(model.targetTokenizer(), answer.data(), static_cast<int64_t>(answer.size())));
        return out;
    }
    // Rows decoded side by side through the KV cache, each step one token per row. A decoder-only batch
    // holds prompts of one length (a padded causal prompt would shift its positions); an encoder–decoder
    // batch pads its sources, masked.
    std::vector<std::vector<std::size_t>> batches;
    constexpr std::size_t kChunk = 500;
    if (enc) {
        for (std::size_t start = 0; start < prompts.size(); start += kChunk) {
            batches.emplace_back();
            for (std::size_t i = start; i < std::min(prompts.size(), start + kChunk); ++i)
                batches.back().push_back(i);
        }
    } else {
        std::map<std::size_t, std::vector<std::size_t>> byLength;
        for (std::size_t i = 0; i < prompts.size(); ++i)
            byLength[prompts[i].size()].push_back(i);
        for (auto& [length, rows] : byLength)
            for (std::size_t start = 0; start < rows.size(); start += kChunk)
                batches.emplace_back(rows.begin() + static_cast<std::ptrdiff_t>(start),
                                     rows.begin() +
                                         static_cast<std::ptrdiff_t>(std::min(rows.size(), start + kChunk)));
    }
    std::vector<std::string> out(sources.size());
    std::size_t answered = 0; // by the batches before this one
    for (const auto& batch : batches) {
        std::vector<std::vector<int64_t>> src, feed;
        for (const auto i : batch) {
            src.push_back(prompts[i]);
            feed.push_back(enc ? std::vector<int64_t>{bos} : prompts[i]);
        }
        IncrementalDecoder decoder(shared, enc ? src : std::vector<std::vector<int64_t>>{}, batch.size());
        std::vector<std::vector<int64_t>> answers(batch.size());
        std::vector<bool> finished(batch.size(), false);
        // The target (prompt or <bos>, then the answer) never grows past max_len.
        const auto fits = [&] {
            return decoder.length() + static_cast<int64_t>(feed.front().size()) < model.config().maxLen;
        };
        for (int step = 0; step < maxAnswer && fits(); ++step) {
            const auto next = decoder.pushGreedy(feed);
            bool all = true;
            for (std::size_t r = 0; r < batch.size(); ++r) {
                // A finished row keeps receiving <pad>; its output is no longer read.
                const auto token = finished[r] ? pad : next[r];
                if (!finished[r])
                    answers[r].push_back(token);
                finished[r] = finished[r] || token == eos;
                all = all && finished[r];
                feed[r] = {token};
            }
            if (progress)
                progress(answered +
                             static_cast<std::size_t>(std::count(finished.begin(), finished.end(), true)),
                         sources.size());
            if (all)
                break;
        }
        answered += batch.size();
        if (progress)
            progress(answered, sources.size());
        for (std::size_t r = 0; r < batch.size(); ++r)
            out[batch[r]] =
                spell(model.targetTokenizer(), answers[r].data(), static_cast<int64_t>(answers[r].size()));
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
