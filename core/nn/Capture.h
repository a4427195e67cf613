#pragma once
// Shapes: H heads, S source length, T target length (or new tokens of a step), Tk keys, L layers.

#include "core/AttentionSnapshot.h"

#include <torch/types.h>

namespace core::nn {

/// Where the attention blocks leave their probabilities when capture is on, already in the snapshot's
/// host layout. Each layer is copied out as soon as it is done, so its (1, H, q, k) tensor is freed with
/// the layer's other temporaries instead of every layer's being held until the pass ends (12 × 48 MB for
/// GPT-2 small's shape at T=1024), and the allocator can hand that memory to the next layer.
struct Capture {
    AttentionBlock encoderSelf; // [L][H][S][S]
    AttentionBlock decoderSelf; // [L][H][T][Tk]
    AttentionBlock cross;       // [L][H][T][S]
};

/// Appends one layer's (1, H, q, k) probabilities to block, which holds `layers` layers once full. The
/// first layer reserves the whole block, so every float is written exactly once: no cat of the layers,
/// no zero-fill before the copy, no regrowth.
inline void appendLayer(AttentionBlock& block, const torch::Tensor& probs, int layers) {
    TORCH_INTERNAL_ASSERT(probs.dim() == 4 && probs.size(0) == 1, "attention capture expects one sequence");
    const auto heads = static_cast<int>(probs.size(1)), queries = static_cast<int>(probs.size(2)),
               keys = static_cast<int>(probs.size(3));
    if (block.layers == 0) {
        block.heads = heads;
        block.queries = queries;
        block.keys = keys;
        block.data.reserve(static_cast<std::size_t>(layers) * static_cast<std::size_t>(probs.numel()));
    }
    TORCH_INTERNAL_ASSERT(block.layers < layers && heads == block.heads && queries == block.queries &&
                              keys == block.keys,
                          "attention layers differ in shape or outnumber the block");
    // A no-op for the usual float32 CPU probabilities; a staging copy from another device or dtype.
    const auto host = probs.to(torch::kCPU, torch::kFloat32).contiguous(); // (1, H, q, k)
    const float* p = host.data_ptr<float>();
    block.data.insert(block.data.end(), p, p + host.numel());
    ++block.layers;
}

} // namespace core::nn
