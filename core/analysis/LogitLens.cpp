#include "core/analysis/LogitLens.h"

#include "core/analysis/StreamPass.h"
#include "core/base/Errors.h"
#include "core/model/ModelParts.h"

#include <torch/torch.h>

#include <chrono>

// Shapes: T positions read, C channels, V the output vocabulary, K candidates kept.

namespace core {

std::string whyNoLogitLens(const ModelConfig& c) {
    return whyNoStreamReading(c);
}

LogitLens logitLens(const Model& model, const AttentionSnapshot& snap, int64_t token, int top,
                    const HeadAblation& ablation) {
    const auto& m = parts(model);
    const auto t0 = std::chrono::steady_clock::now();
    const auto pass = recordStream(model, snap, ablation, "no logit lens");
    LogitLens lens;
    lens.encoderSide = pass.encoderSide;
    lens.postNorm = m.config.postNorm;
    lens.tokens = pass.tokens;
    const auto T = static_cast<int64_t>(lens.tokens.size());
    const auto& vocab = (lens.encoderSide ? model.sourceTokenizer() : model.targetTokenizer()).vocab();
    torch::NoGradGuard noGrad;
    lens.points = pass.points;
    const auto points = lens.points.size();

    // The last point first: it is the model's own output, and its most likely tokens are what every other
    // point is asked about by default.
    const auto read = [&](std::size_t p) {
        const auto logits = m.logits(m.finalNorm(pass.stream[p], lens.encoderSide));     // (1, T, V)
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
