#pragma once
// Shapes: B batch, Tq queries, Tk keys, C channels, H heads, hs head size (C / H).

#include "core/model/ModelConfig.h"
#include "core/model/nn/KvCache.h"

#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/pimpl.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace core::nn {

/// The shape of one attention block: the seed's (every projection C × C with a bias, no rotation) or the
/// Llama family's (grouped key/value heads, rotary positions of either pairing, projections without bias).
struct AttentionOptions {
    int64_t dModel = 0;
    int64_t heads = 1;
    int64_t kvHeads = 1;   // key/value heads; heads / kvHeads query heads share each
    bool qkvBias = true;   // q, k, v add a bias
    bool outBias = true;   // linears[3] adds a bias
    double ropeBase = 0.0; // > 0: queries and keys turn by their positions (rotary); 0: no rotation
    RopeStyle ropeStyle = RopeStyle::Interleaved;
    RopeScaling ropeScaling;
    /// A block of c: self-attention with its rotary positions, or cross-attention (position-free, and one
    /// key/value head per query head: grouped-query attention is a decoder-only design).
    static AttentionOptions of(const ModelConfig& c, bool self);
};

/// The seed's MultiHeadedAttention: linears[0..2] project q, k, v; linears[3] projects the heads back.
/// Probabilities always come from the explicit softmax(QKᵀ/√hs), so they can be captured.
///
/// The weights and biases of linears[0..2] are slices of one (C + 2·kv, C) matrix and one vector, so that
/// without autograd q, k and v (or cross-attention's k and v) come from a single product. With grouped-query
/// attention k and v project to kvHeads heads, which are repeated to one per query head right after the
/// projection (and rotation): the cache, the capture and the Inside view then read keys and values per query
/// head as with any other model, at the price of a cache heads/kvHeads times larger. They keep their
/// names and shapes as separate parameters; whenever they no longer lie back to back (an optimizer moved
/// them, a device copy), the projections are simply made one by one.
class MultiHeadAttentionImpl : public torch::nn::Module {
public:
    explicit MultiHeadAttentionImpl(const AttentionOptions& options);

    /// Self-attention of x over itself, or over the cache plus x when a cache is given (x is then
    /// appended to it). pos0 is the position of x's first token. mask is (B, 1|Tq, Tk), either bool with
    /// false = blocked or additive float (0 or -1e9, see additiveMask). lastOnly: return only the last
    /// query's row (B, 1, C); probs still covers every query. A probs that holds a contiguous tensor of the
    /// probabilities' shape and type on entry (a capture's layerSlot) is written into; otherwise it is set to
    /// a new one. off: [H] flags, nonzero where a head's output is zeroed before linears[3] (head ablation);
    /// null for none.
    torch::Tensor selfAttend(const torch::Tensor& x, const torch::Tensor& mask, int64_t pos0, KvCache* cache,
                             torch::Tensor* probs, bool lastOnly = false, const std::uint8_t* off = nullptr);
    /// Attention of x over memory. With a cache, memory's keys and values are projected once and reused.
    torch::Tensor crossAttend(const torch::Tensor& x, const torch::Tensor& memory, const torch::Tensor& mask,
                              KvCache* cache, torch::Tensor* probs, bool lastOnly = false,
                              const std::uint8_t* off = nullptr);

    torch::nn::ModuleList linears{nullptr};

    // The pieces of attend() one at a time, for the Inside view's recomputation of a single row.
    int64_t heads() const { return heads_; }
    int64_t keyValueHeads() const { return kvHeads_; }
    int64_t headSize() const { return headSize_; }
    /// Projection `index` (0 q, 1 k, 2 v) of x, one head per query head (k and v repeated for grouped-query
    /// attention): (B, T, C) -> (B, H, T, hs).
    torch::Tensor project(int index, const torch::Tensor& x);
    /// Projection `index` of x for heads first … first + count − 1 only: (B, count, T, hs). Not for the keys
    /// or values of grouped-query attention.
    torch::Tensor projectHeads(int index, const torch::Tensor& x, int64_t first, int64_t count);
    /// Rotates (B, H', T, hs) queries or keys whose first row sits at position pos0 (identity without RoPE).
    torch::Tensor rotate(const torch::Tensor& t, int64_t pos0) const;
    bool rotary() const { return theta_.defined(); }
    /// Each head's Gram matrix of linears[3]: G_h = W_O^(h)ᵀ W_O^(h), (H, hs, hs), float32, for the norms
    /// ‖W_O^(h) v‖ of values. Depends only on the weights, so it is kept, and made again once they are
    /// written or replaced; safe to call from several threads.
    torch::Tensor outputGram() const;

private:
    /// Projections first .. first + count - 1 of x, each (B, heads of it, T, hs): k and v have kvHeads.
    std::vector<torch::Tensor> projectMany(int first, int count, const torch::Tensor& x);
    /// (B, kvHeads, T, hs) keys or values as (B, H, T, hs): kv head g serves query heads g·r … g·r + r − 1.
    torch::Tensor repeatKv(const torch::Tensor& t) const;
    int64_t headsOf(int index) const { return index == 1 || index == 2 ? kvHeads_ : heads_; }
    torch::Tensor attend(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                         const torch::Tensor& mask, torch::Tensor* probs, bool lastOnly,
                         const std::uint8_t* off);
    torch::Tensor attendWithAutograd(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                                     const torch::Tensor& mask, torch::Tensor* probs,
                                     const std::uint8_t* off);

    int64_t heads_, kvHeads_, headSize_;
    RopeStyle ropeStyle_;
    torch::Tensor theta_; // (hs/2) angular frequency of each dimension pair, float32; undefined without rope
    struct GramCache;
    std::shared_ptr<GramCache> gram_; // outputGram()'s last result and the weights it came from
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
