#include "core/analysis/AttentionStats.h"

#include <cmath>
#include <cstdlib>
#include <limits>

namespace core {

HeadStats headStats(const float* weights, int queries, int keys) {
    HeadStats s;
    if (weights == nullptr || queries <= 0 || keys <= 0)
        return s;
    s.minWeight = std::numeric_limits<float>::infinity();
    s.maxWeight = -std::numeric_limits<float>::infinity();
    s.argmaxKey.resize(static_cast<std::size_t>(queries));
    double entropy = 0.0;
    double rowMax = 0.0;
    double distance = 0.0;
    for (int q = 0; q < queries; ++q) {
        const float* row = weights + static_cast<std::size_t>(q) * static_cast<std::size_t>(keys);
        double h = 0.0;
        double d = 0.0;
        int best = 0;
        for (int k = 0; k < keys; ++k) {
            const float w = row[k];
            // 0·log 0 is taken as 0 (its limit), so masked keys add nothing.
            if (w > 0.0f)
                h -= w * std::log2(static_cast<double>(w));
            d += w * static_cast<double>(std::abs(q - k));
            if (w > row[best])
                best = k;
            if (w < s.minWeight)
                s.minWeight = w;
            if (w > s.maxWeight)
                s.maxWeight = w;
            if (q > 0 && w > s.maxWeightPastFirstRow)
                s.maxWeightPastFirstRow = w;
        }
        entropy += h;
        distance += d;
        rowMax += row[best];
        s.argmaxKey[static_cast<std::size_t>(q)] = best;
    }
    // Row 0 is left out: in causal attention it can only look at key 0, which would pull both towards 1.
    for (int q = 1; q < queries && keys > 0; ++q) {
        const float* row = weights + static_cast<std::size_t>(q) * static_cast<std::size_t>(keys);
        s.firstTokenWeight += row[0];
        if (q - 1 < keys)
            s.previousTokenScore += row[q - 1];
    }
    if (queries > 1) {
        s.firstTokenWeight /= queries - 1;
        s.previousTokenScore /= queries - 1;
    }
    s.meanEntropyBits = entropy / queries;
    s.meanRowMax = rowMax / queries;
    s.meanDistance = distance / queries;
    return s;
}

HeadStats headStats(const AttentionBlock& block, int layer, int head) {
    if (block.empty() || layer < 0 || layer >= block.layers || head < kMeanHead || head >= block.heads)
        return {};
    if (head == kMeanHead) {
        const auto mean = meanOverHeads(block, layer);
        return headStats(mean.data(), block.queries, block.keys);
    }
    std::vector<float> scratch;
    return headStats(block.head(layer, head, scratch), block.queries, block.keys);
}

std::pair<float, float> informativeRange(const float* weights, int queries, int keys, bool causal) {
    float lo = std::numeric_limits<float>::infinity();
    float hi = -std::numeric_limits<float>::infinity();
    float allLo = lo, allHi = hi;
    for (int q = 0; q < queries; ++q) {
        const int visible = causal ? std::min(q + 1, keys) : keys;
        for (int k = 0; k < keys; ++k) {
            const float v =
                weights[static_cast<std::size_t>(q) * static_cast<std::size_t>(keys) + std::size_t(k)];
            allLo = std::min(allLo, v);
            allHi = std::max(allHi, v);
            if (k < visible && visible > 1) {
                lo = std::min(lo, v);
                hi = std::max(hi, v);
            }
        }
    }
    if (lo > hi)
        return {allLo > allHi ? 0.0f : allLo, allLo > allHi ? 0.0f : allHi};
    return {lo, hi};
}

} // namespace core
