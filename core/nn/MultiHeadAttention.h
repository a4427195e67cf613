#pragma once
// Shapes: B batch, Tq queries, Tk keys, C channels, H heads, hs head size (C / H).

#include "core/nn/KvCache.h"

#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/pimpl.h>

namespace core::nn {

/// The seed's MultiHeadedAttention: linears[0..2] project q, k, v; linears[3] projects the heads back.
/// Probabilities always come from the explicit softmax(QKᵀ/√hs), so they can be captured.
class MultiHeadAttentionImpl : public torch::nn::Module {
public:
    /// ropeBase > 0 rotates queries and keys by their positions (rotary embeddings); 0 disables it.
    MultiHeadAttentionImpl(int64_t dModel, int64_t heads, double ropeBase);

    /// Self-attention of x over itself, or over the cache plus x when a cache is given (x is then
    /// appended to it). pos0 is the position of x's first token; mask is (B, 1|Tq, Tk) with 0 = blocked.
    torch::Tensor selfAttend(const torch::Tensor& x, const torch::Tensor& mask, int64_t pos0, KvCache* cache,
                             torch::Tensor* probs);
    /// Attention of x over memory. With a cache, memory's keys and values are projected once and reused.
    torch::Tensor crossAttend(const torch::Tensor& x, const torch::Tensor& memory, const torch::Tensor& mask,
                              KvCache* cache, torch::Tensor* probs);

    torch::nn::ModuleList linears{nullptr};

private:
    torch::Tensor project(int index, const torch::Tensor& x); // (B, T, C) -> (B, H, T, hs)
    torch::Tensor rotate(const torch::Tensor& t, int64_t pos0) const;
    torch::Tensor attend(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                         const torch::Tensor& mask, torch::Tensor* probs);

    int64_t heads_, headSize_;
    double ropeBase_;
};
TORCH_MODULE(MultiHeadAttention);

} // namespace core::nn
