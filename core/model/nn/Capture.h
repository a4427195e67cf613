#pragma once
// Shapes: H heads, S source length, T target length (or new tokens of a step), Tk keys, L layers.

#include "core/base/Float16.h"
#include "core/base/FloatPool.h"
#include "core/model/AttentionBlock.h"

#include <ATen/Parallel.h>
#include <torch/types.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace core::nn {

/// Where the attention blocks leave their probabilities when capture is on, already in the snapshot's
/// host layout. Each layer is copied out as soon as it is done, so its (1, H, q, k) tensor is freed with
/// the layer's other temporaries instead of every layer's being held until the pass ends (12 × 48 MB for
/// GPT-2 small's shape at T=1024), and the allocator can hand that memory to the next layer.
struct Capture {
    AttentionBlock encoderSelf;                            // [L][H][S][S]
    AttentionBlock decoderSelf = causal(AttentionBlock{}); // [L][H][T][Tk], masked
    AttentionBlock cross;                                  // [L][H][T][S]
    /// With keepInputs, the residual rows entering each encoder layer (before its norm), [L] × (1, S, C):
    /// what the Inside view recomputes the encoder's queries, keys and values from.
    bool keepInputs = false;
    std::vector<torch::Tensor> encoderInputs;
    /// Called after each layer of the pass, when set: how a long analysis tells how far it has got.
    std::function<void()> layerDone;
    /// False: the probabilities are not recorded (the blocks stay empty). The logit lens of a long text
    /// wants only the stream, and every layer's T × T weights would be most of its memory.
    bool attention = true;
    /// With keepStream, the residual stream of the pass (the encoder's or the decoder's) at every point the
    /// lens reads: after the embeddings, then after each sublayer of each layer, (1, T, C) each, named in
    /// streamPoints ("embed", "0.attn", "0.cross", "0.mlp", …). A post-norm model's stream after a
    /// sublayer is the normed sum: that is what its next sublayer reads.
    bool keepStream = false;
    std::vector<torch::Tensor> stream;
    std::vector<std::string> streamPoints;

private:
    static AttentionBlock causal(AttentionBlock b) {
        b.causal = true;
        return b;
    }
};

/// The storage of the next layer of a dense block, as a (1, H, q, k) tensor over the block's own memory,
/// for the attention to write its probabilities straight into: no temporary, no copy, and (the memory
/// coming from FloatPool) no fresh pages. The first layer sizes the block for `layers` layers. Undefined
/// for a block too large for dense storage (AttentionBlock::wantsCompact): appendLayer converts those.
inline torch::Tensor layerSlot(AttentionBlock& block, int layers, int heads, int queries, int keys) {
    const int layer = block.layers;
    if (layer == 0 && block.empty()) {
        if (AttentionBlock::wantsCompact(layers, heads, queries, keys)) {
            block.allocate(layers, heads, queries, keys);
            block.layers = 0; // counts the layers appended so far
        } else {
            block.heads = heads;
            block.queries = queries;
            block.keys = keys;
            // Every cell is written before it is read: the layers fill the block in order.
            block.data =
                FloatPool::shared().take(static_cast<std::size_t>(layers) * static_cast<std::size_t>(heads) *
                                         static_cast<std::size_t>(queries) * static_cast<std::size_t>(keys));
        }
    }
    TORCH_INTERNAL_ASSERT(layer < layers && heads == block.heads && queries == block.queries &&
                              keys == block.keys,
                          "attention layers differ in shape or outnumber the block");
    if (block.compact())
        return {};
    return torch::from_blob(block.data.mutableData() + block.rowOffset(layer, 0, 0),
                            {1, heads, queries, keys},
                            torch::TensorOptions().dtype(torch::kFloat32)); // (1, H, q, k)
}

/// Appends one layer's (1, H, q, k) probabilities to block, which holds `layers` layers once full. Nothing
/// to copy when the attention wrote them into layerSlot(); otherwise they are copied there once (another
/// device or dtype, or the autograd path's own tensor). A compact block gets each layer as float16,
/// converted by LibTorch, and a causal one only the visible keys of each row.
inline void appendLayer(AttentionBlock& block, const torch::Tensor& probs, int layers) {
    TORCH_INTERNAL_ASSERT(probs.dim() == 4 && probs.size(0) == 1, "attention capture expects one sequence");
    const auto heads = static_cast<int>(probs.size(1)), queries = static_cast<int>(probs.size(2)),
               keys = static_cast<int>(probs.size(3));
    const int layer = block.layers;
    auto slot = layerSlot(block, layers, heads, queries, keys); // (1, H, q, k); undefined when compact
    if (block.compact()) {
        // Converted row by row straight into the block: a float16 copy of the whole layer first would be
        // 100 MB of fresh pages a layer at GPT-2 small's shape and 2,048 tokens, and a triangular block
        // keeps only the visible half of each head anyway.
        const auto host = probs.to(torch::kCPU, torch::kFloat32).contiguous(); // (1, H, q, k)
        const float* p = host.data_ptr<float>();
        std::uint16_t* out = block.mutableHalf();
        const auto rows = static_cast<int64_t>(heads) * queries;
        at::parallel_for(0, rows, std::max<int64_t>(1, (int64_t(1) << 16) / std::max(1, keys)),
                         [&](int64_t begin, int64_t end) {
                             for (int64_t r = begin; r < end; ++r) {
                                 const int h = static_cast<int>(r / queries),
                                           q = static_cast<int>(r % queries);
                                 const float* src = p + r * keys;
                                 std::uint16_t* dst = out + block.rowOffset(layer, h, q);
                                 floatsToHalves(src, dst, static_cast<std::size_t>(block.storedKeys(q)));
                             }
                         });
    } else if (probs.data_ptr() != slot.data_ptr()) {
        slot.copy_(probs); // (1, H, q, k)
    }
    block.layers = layer + 1;
}

} // namespace core::nn
