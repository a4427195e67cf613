#include "core/analysis/LogitLens.h"

#include "core/base/Errors.h"
#include "core/model/ModelParts.h"
#include "core/model/nn/Capture.h"
#include "core/model/nn/Transformer.h"

#include <torch/torch.h>

#include <chrono>

// Shapes: T positions read, C channels, V the output vocabulary, K candidates kept.

namespace core {

namespace {

std::vector<int64_t> idsOf(const std::vector<Token>& tokens) {
    std::vector<int64_t> ids;
    ids.reserve(tokens.size());
    for (const auto& t : tokens)
        ids.push_back(t.id);
    return ids;
}

// Why a model has no lens, or empty when it has one.
std::string withoutOutput(const ModelConfig& c) {
    if (c.recurrent())
        return "'" + c.name + "' is not a Transformer: it has no residual stream to read";
    if (!c.hasOutput())
        return "'" + c.name + "' has no output layer to read its stream through (an encoder without a " +
               "masked-LM head)";
    return {};
}

} // namespace

LogitLens logitLens(const Model& model, const AttentionSnapshot& snap, int64_t token, int top,
                    const HeadAblation& ablation) {
    const auto& m = parts(model);
    const auto& c = m.config;
    if (const auto why = withoutOutput(c); !why.empty())
        throw InputError("no logit lens: " + why);
    const auto t0 = std::chrono::steady_clock::now();
    LogitLens lens;
    lens.encoderSide = !c.hasDecoder();
    lens.postNorm = c.postNorm;
    lens.tokens = lens.encoderSide ? snap.srcTokens : snap.tgtTokens;
    if (lens.tokens.empty())
        throw InputError("no logit lens: the run has no tokens to read");
    const auto& vocab = (lens.encoderSide ? model.sourceTokenizer() : model.targetTokenizer()).vocab();

    checkAblation(ablation, c);
    const auto* off = ablation.empty() ? nullptr : &ablation;
    torch::NoGradGuard noGrad;
    nn::Capture cap;
    cap.attention = false; // the stream alone: a long text's T × T weights are not needed here
    cap.keepStream = true;
    const auto ids = m.toTensor(idsOf(lens.tokens)); // (1, T)
    const auto T = ids.size(1);
    if (lens.encoderSide) {
        m.encode(ids, nn::sourceMask(ids, m.srcPad()), &cap, off);
    } else {
        torch::Tensor memory, srcMask;
        if (c.hasEncoder()) {
            const auto src = m.toTensor(idsOf(snap.srcTokens)); // (1, S)
            srcMask = nn::sourceMask(src, m.srcPad());
            memory = m.encode(src, srcMask, nullptr, off); // (1, S, C)
        }
        // Causal over the whole prefix, as the decode's own passes saw it (no padding inside a run).
        const auto mask = torch::ones({1, T, T}, torch::TensorOptions().dtype(torch::kBool).device(m.device))
                              .tril(); // (1, T, T)
        m.decode(ids, memory, srcMask, mask, 0, nullptr, &cap, false, off);
    }
    TORCH_INTERNAL_ASSERT(cap.stream.size() == cap.streamPoints.size() && !cap.stream.empty(),
                          "the pass recorded no stream");
    lens.points = cap.streamPoints;
    const auto points = lens.points.size();

    // The last point first: it is the model's own output, and its most likely tokens are what every other
    // point is asked about by default.
    const auto read = [&](std::size_t p) {
        const auto logits = m.logits(m.finalNorm(cap.stream[p], lens.encoderSide));      // (1, T, V)
        return torch::log_softmax(logits[0].to(torch::kFloat32), -1).cpu().contiguous(); // (T, V)
    };
    auto last = read(points - 1); // (T, V)
    const auto V = last.size(1);
    if (token >= V)
        throw InputError("no logit lens: token " + std::to_string(token) + " is outside the vocabulary of " +
                         std::to_string(V) + " tokens");
    lens.chosen.assign(static_cast<std::size_t>(T), token);
    if (token < 0) {
        const auto best = last.argmax(-1); // (T)
        for (int64_t t = 0; t < T; ++t)
            lens.chosen[std::size_t(t)] = best[t].item<int64_t>();
    }
    const auto chosen = torch::tensor(lens.chosen, torch::kLong).unsqueeze(1); // (T, 1)
    const int k = static_cast<int>(std::min<int64_t>(std::max(top, 1), V));
    lens.logprob.resize(points);
    lens.rank.resize(points);
    lens.entropy.resize(points);
    lens.top.resize(points);
    for (std::size_t p = 0; p < points; ++p) {
        const auto logp = p + 1 == points ? last : read(p); // (T, V)
        const auto own = logp.gather(1, chosen);            // (T, 1)
        const auto rank = (logp > own).sum(1);              // (T)
        const auto entropy = -(logp.exp() * logp).sum(1);   // (T)
        const auto [values, indices] = logp.topk(k, 1);     // (T, K) each
        const auto ownA = own.accessor<float, 2>();
        const auto rankA = rank.accessor<int64_t, 1>();
        const auto entropyA = entropy.accessor<float, 1>();
        const auto valuesA = values.accessor<float, 2>();
        const auto indicesA = indices.accessor<int64_t, 2>();
        auto& tops = lens.top[p];
        tops.resize(static_cast<std::size_t>(T));
        for (int64_t t = 0; t < T; ++t) {
            lens.logprob[p].push_back(ownA[t][0]);
            lens.rank[p].push_back(rankA[t]);
            lens.entropy[p].push_back(entropyA[t]);
            for (int i = 0; i < k; ++i) {
                const auto id = indicesA[t][i];
                tops[std::size_t(t)].push_back(
                    {id, id < vocab.size() ? vocab.token(id) : "<id " + std::to_string(id) + ">",
                     std::exp(valuesA[t][i])});
            }
        }
    }
    lens.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return lens;
}

} // namespace core
