#include "core/analysis/ValueWeighting.h"

#include <vector>

namespace core {

AttentionBlock valueWeighted(const AttentionBlock& weights, const KeyNorms& norms) {
    AttentionBlock out;
    if (weights.empty() || norms.empty() || norms.layers != weights.layers || norms.heads != weights.heads ||
        norms.keys != weights.keys)
        return out;
    out.causal = weights.causal;
    out.allocate(weights.layers, weights.heads, weights.queries, weights.keys);
    std::vector<float> scratch, row(static_cast<std::size_t>(weights.keys));
    for (int l = 0; l < weights.layers; ++l)
        for (int h = 0; h < weights.heads; ++h) {
            const float* n = norms.row(l, h);
            for (int q = 0; q < weights.queries; ++q) {
                const float* a = weights.row(l, h, q, scratch);
                const int visible = weights.storedKeys(q);
                double total = 0.0;
                for (int k = 0; k < visible; ++k)
                    total += double(a[k]) * double(n[k]);
                for (int k = 0; k < visible; ++k)
                    row[static_cast<std::size_t>(k)] =
                        total > 0.0 ? static_cast<float>(double(a[k]) * double(n[k]) / total) : 0.0f;
                out.setRow(l, h, q, row.data(), visible);
            }
        }
    return out;
}

void addValueWeighted(AttentionSnapshot& snap) {
    snap.encoderWeighted = valueWeighted(snap.encoder, snap.encoderNorms);
    snap.decoderWeighted = valueWeighted(snap.decoder, snap.decoderNorms);
    snap.crossWeighted = valueWeighted(snap.cross, snap.crossNorms);
}

} // namespace core
