#pragma once
// Shapes: B batch, Tq queries, Tk keys, C channels, H heads, hs head size (C / H).

#include "core/model/nn/KvCache.h"

#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/pimpl.h>

#include <cstdint>
#include <vector>

namespace core::nn {

/// The seed's MultiHeadedAttention: linears[0..2] project q, k, v; linears[3] projects the heads back.
/// Probabilities always come from the explicit softmax(QKᵀ/√hs), so they can be captured.
///
/// The weights and biases of linears[0..2] are slices of one (3C, C) matrix and one (3C) vector, so that
/// without autograd q, k and v (or cross-attention's k and v) come from a single product. They keep their
/// names and shapes as separate parameters; whenever they no longer lie back to back (an optimizer moved
/// them, a device copy), the projections are simply made one by one.
class MultiHeadAttentionImpl : public torch::nn::Module {
public:
    /// ropeBase > 0 rotates queries and keys by their positions (rotary embeddings); 0 disables it.
    MultiHeadAttentionImpl(int64_t dModel, int64_t heads, double ropeBase);

    /// Self-attention of x over itself, or over the cache plus x when a cache is given (x is then
    /// appended to it). pos0 is the position of x's first token. mask is (B, 1|Tq, Tk), either bool with
    /// false = blocked or additive float (0 or -1e9, see additiveMask). lastOnly: return only the last
    /// query's row (B, 1, C); probs still covers every query. off: [H] flags, nonzero where a head's output
    /// is zeroed before linears[3] (head ablation); null for none.
    torch::Tensor selfAttend(const torch::Tensor& x, const torch::Tensor& mask, int64_t pos0, KvCache* cache,
                             torch::Tensor* probs, bool lastOnly = false, const std::uint8_t* off = nullptr);
    /// Attention of x over memory. With a cache, memory's keys and values are projected once and reused.
    torch::Tensor crossAttend(const torch::Tensor& x, const torch::Tensor& memory, const torch::Tensor& mask,
                              KvCache* cache, torch::Tensor* probs, bool lastOnly = false,
                              const std::uint8_t* off = nullptr);

    torch::nn::ModuleList linears{nullptr};

    // The pieces of attend() one at a time, for the Inside view's recomputation of a single row.
    int64_t heads() const { return heads_; }
    int64_t headSize() const { return headSize_; }
    torch::Tensor project(int index, const torch::Tensor& x); // (B, T, C) -> (B, H, T, hs)
    /// Projection `index` of x for heads first … first + count − 1 only: (B, count, T, hs).
    torch::Tensor projectHeads(int index, const torch::Tensor& x, int64_t first, int64_t count);
    /// Rotates (B, H', T, hs) queries or keys whose first row sits at position pos0 (identity without RoPE).
    torch::Tensor rotate(const torch::Tensor& t, int64_t pos0) const;
    bool rotary() const { return ropeBase_ > 0.0; }

private:
    /// Projections first .. first + count - 1 of x, each (B, H, T, hs).
    std::vector<torch::Tensor> projectMany(int first, int count, const torch::Tensor& x);
    torch::Tensor attend(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                         const torch::Tensor& mask, torch::Tensor* probs, bool lastOnly,
                         const std::uint8_t* off);
    torch::Tensor attendWithAutograd(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                                     const torch::Tensor& mask, torch::Tensor* probs,
                                     const std::uint8_t* off);

    int64_t heads_, headSize_;
    double ropeBase_;
};
TORCH_MODULE(MultiHeadAttention);

/// What a blocked key's score becomes: the seed's masked_fill value, −∞ for the softmax (exp underflows to
/// 0).
inline constexpr double kBlockedScore = -1e9;

/// A (B, 1|Tq, Tk) bool mask (false = blocked) as the additive float mask the inference path adds to the
/// scores: 0 where allowed, -1e9 where blocked; undefined when nothing is blocked. Undefined and float masks
/// pass through. For any row with an allowed key the softmax equals the seed's masked_fill(-1e9) exactly:
/// exp(-1e9 - max) is 0 in float either way.
torch::Tensor additiveMask(const torch::Tensor& mask);

} // namespace core::nn
