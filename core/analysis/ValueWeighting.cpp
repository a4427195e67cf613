#include "core/analysis/ValueWeighting.h"

#include <ATen/Parallel.h>
#include <c10/util/Half.h>

#include <vector>

namespace core {

namespace {

// Any storage in, any storage out, a row at a time through the block's own accessors: for a block whose
// storage is not what its shape gives (a dense block built by hand past the dense limit).
void weighRows(const AttentionBlock& weights, const KeyNorms& norms, AttentionBlock& out) {
    std::vector<float> scratch, row(static_cast<std::size_t>(weights.keys));
    for (int l = 0; l < weights.layers; ++l)
        for (int h = 0; h < weights.heads; ++h)
            for (int q = 0; q < weights.queries; ++q) {
                const float* a = weights.row(l, h, q, scratch);
                const float* n = norms.row(l, h);
                double total = 0.0;
                for (int k = 0; k < weights.keys; ++k) {
                    row[static_cast<std::size_t>(k)] = a[k] * n[k];
                    total += row[static_cast<std::size_t>(k)];
                }
                const float scale = total > 0.0 ? static_cast<float>(1.0 / total) : 0.0f;
                for (auto& v : row)
                    v *= scale;
                out.setRow(l, h, q, row.data(), weights.keys);
            }
}

} // namespace

AttentionBlock valueWeighted(const AttentionBlock& weights, const KeyNorms& norms) {
    AttentionBlock out;
    if (weights.empty() || norms.empty() || norms.layers != weights.layers || norms.heads != weights.heads ||
        norms.keys != weights.keys)
        return out;
    out.causal = weights.causal;
    out.allocate(weights.layers, weights.heads, weights.queries, weights.keys);
    const bool compact = weights.compact();
    if (out.compact() != compact || out.triangular != weights.triangular) {
        weighRows(weights, norms, out);
        return out;
    }
    const std::uint16_t* inHalf = weights.halfData();
    std::uint16_t* outHalf = out.mutableHalf(); // before the threads: a shared block is copied here
    float* outData = out.data.mutableData();
    const int heads = weights.heads;
    // A long compact block has 150 M cells (GPT-2 small's shape at 1,024 tokens): one pass over each row's
    // stored cells, the heads split over the threads, and float16 read and written directly.
    at::parallel_for(0, int64_t(weights.layers) * heads, 1, [&](int64_t begin, int64_t end) {
        std::vector<float> row(static_cast<std::size_t>(weights.keys));
        for (int64_t i = begin; i < end; ++i) {
            const int l = static_cast<int>(i / heads), h = static_cast<int>(i % heads);
            const float* n = norms.row(l, h);
            for (int q = 0; q < weights.queries; ++q) {
                const auto offset = weights.rowOffset(l, h, q);
                const int visible = weights.storedKeys(q);
                double total = 0.0;
                for (int k = 0; k < visible; ++k) {
                    const float a = compact ? float(c10::Half(inHalf[offset + static_cast<std::size_t>(k)],
                                                              c10::Half::from_bits()))
                                            : weights.data[offset + static_cast<std::size_t>(k)];
                    row[static_cast<std::size_t>(k)] = a * n[k];
                    total += row[static_cast<std::size_t>(k)];
                }
                const float scale = total > 0.0 ? static_cast<float>(1.0 / total) : 0.0f;
                for (int k = 0; k < visible; ++k) {
                    const float v = row[static_cast<std::size_t>(k)] * scale;
                    if (compact)
                        outHalf[offset + static_cast<std::size_t>(k)] = c10::Half(v).x;
                    else
                        outData[offset + static_cast<std::size_t>(k)] = v;
                }
            }
        }
    });
    return out;
}

void addValueWeighted(AttentionSnapshot& snap) {
    snap.encoderWeighted = valueWeighted(snap.encoder, snap.encoderNorms);
    snap.decoderWeighted = valueWeighted(snap.decoder, snap.decoderNorms);
    snap.crossWeighted = valueWeighted(snap.cross, snap.crossNorms);
}

} // namespace core
