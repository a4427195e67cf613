#include "core/analysis/HeadAnalysis.h"

#include "core/analysis/AttentionStats.h"
#include "core/base/Errors.h"
#include "core/model/Model.h"
#include "core/run/Analyze.h"
#include "core/text/Vocabulary.h"

#include <algorithm>
#include <random>
#include <string>

namespace core {

HeadScores scoreHead(const AttentionBlock& block, int layer, int head, int repeatLength) {
    HeadScores s;
    s.layer = layer;
    s.head = head;
    const int n = repeatLength, t = block.queries;
    std::vector<float> scratch;
    const float* w = block.head(layer, head, scratch); // t × keys
    const auto stats = headStats(w, t, block.keys);
    s.entropyBits = stats.meanEntropyBits;
    s.meanDistance = stats.meanDistance;
    s.firstTokenWeight = stats.firstTokenWeight;
    s.previousTokenScore = stats.previousTokenScore;
    auto at = [&](int q, int k) {
        return double(w[std::size_t(q) * std::size_t(block.keys) + std::size_t(k)]);
    };
    int rows = 0;
    for (int j = 0; j < n && 1 + n + j < t; ++j, ++rows)
        s.inductionScore += at(1 + n + j, 2 + j);
    if (rows > 0)
        s.inductionScore /= rows;
    return s;
}

double inductionChance(int repeatLength) {
    if (repeatLength <= 0)
        return 0.0;
    double sum = 0.0;
    for (int j = 0; j < repeatLength; ++j)
        sum += 1.0 / (2.0 + repeatLength + j);
    return sum / repeatLength;
}

bool inductionStandsOut(double score, int repeatLength) {
    return score >= std::max(0.3, 5.0 * inductionChance(repeatLength));
}

int fittedRepeatLength(const Model& model, const HeadAnalysisSettings& settings) {
    return std::min(settings.repeatLength, (static_cast<int>(model.config().maxLen) - 1) / 2);
}

std::vector<HeadProbe> headProbes(const Model& model, const HeadAnalysisSettings& settings) {
    const auto& c = model.config();
    if (!c.hasDecoder())
        throw InputError("head scores read decoder self-attention, and an encoder-only model has none");
    const int n = fittedRepeatLength(model, settings);
    if (n < 2)
        throw InputError("max_len " + std::to_string(c.maxLen) +
                         " leaves no room for a repeated sequence (it needs 1 + 2·R tokens, R ≥ 2)");
    if (settings.sequences < 1)
        throw InputError("the head analysis needs at least one sequence");
    // Every id but the specials, so a sequence is ordinary text to the model.
    auto ordinaryIds = [](const Vocabulary& v) {
        std::vector<int64_t> ids;
        for (int64_t id = 0; id < v.size(); ++id)
            if (id != v.pad() && id != v.bos() && id != v.eos() && id != v.unk())
                ids.push_back(id);
        if (ids.empty())
            throw InputError("the vocabulary has no tokens besides its special ones");
        return ids;
    };
    const auto& vocab = model.targetTokenizer().vocab();
    const auto ordinary = ordinaryIds(vocab);
    const auto srcOrdinary = c.hasEncoder() ? ordinaryIds(model.sourceTokenizer().vocab()) : ordinary;
    std::mt19937_64 rng(settings.seed);
    std::uniform_int_distribution<std::size_t> pick(0, ordinary.size() - 1);
    std::vector<HeadProbe> probes;
    for (int s = 0; s < settings.sequences; ++s) {
        HeadProbe p;
        p.repeatLength = n;
        std::vector<int64_t> r(static_cast<std::size_t>(n));
        for (auto& id : r)
            id = ordinary[pick(rng)];
        p.tgt.push_back(vocab.bos());
        p.tgt.insert(p.tgt.end(), r.begin(), r.end());
        p.tgt.insert(p.tgt.end(), r.begin(), r.end());
        if (c.hasEncoder()) {
            // The same sequence as the source, each token mapped into the source vocabulary's own ids.
            const auto [prefix, suffix] = model.sourceFrame();
            p.src = prefix;
            for (std::size_t i = 0; i < r.size(); ++i)
                p.src.push_back(srcOrdinary[static_cast<std::size_t>(r[i]) % srcOrdinary.size()]);
            p.src.insert(p.src.end(), suffix.begin(), suffix.end());
        }
        probes.push_back(std::move(p));
    }
    return probes;
}

std::vector<HeadScores> analyzeHeads(const Model& model, const HeadAnalysisSettings& settings) {
    std::vector<HeadScores> sum;
    for (const auto& probe : headProbes(model, settings)) {
        const int n = probe.repeatLength;
        const auto snap = core::analyze(model, probe.src, probe.tgt);
        const auto& b = snap.decoder;
        if (sum.empty())
            sum.resize(static_cast<std::size_t>(b.layers) * static_cast<std::size_t>(b.heads));
        for (int l = 0; l < b.layers; ++l)
            for (int h = 0; h < b.heads; ++h) {
                const auto one = scoreHead(b, l, h, n);
                auto& acc = sum[static_cast<std::size_t>(l * b.heads + h)];
                acc.layer = l;
                acc.head = h;
                acc.entropyBits += one.entropyBits / settings.sequences;
                acc.meanDistance += one.meanDistance / settings.sequences;
                acc.firstTokenWeight += one.firstTokenWeight / settings.sequences;
                acc.previousTokenScore += one.previousTokenScore / settings.sequences;
                acc.inductionScore += one.inductionScore / settings.sequences;
            }
    }
    return sum;
}

} // namespace core
