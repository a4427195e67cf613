#include "core/nn/MultiHeadAttention.h"

#include "core/nn/Linear.h"

#include <torch/torch.h>

#include <cmath>

namespace core::nn {

MultiHeadAttentionImpl::MultiHeadAttentionImpl(int64_t dModel, int64_t heads, double ropeBase)
    : linears(register_module("linears", torch::nn::ModuleList())), heads_(heads), headSize_(dModel / heads),
      ropeBase_(ropeBase) {
    for (int i = 0; i < 4; ++i)
        linears->push_back(torch::nn::Linear(dModel, dModel));
}

torch::Tensor MultiHeadAttentionImpl::project(int index, const torch::Tensor& x) {
    const auto b = x.size(0);
    auto y = linear(*linears[static_cast<size_t>(index)]->as<torch::nn::Linear>(), x); // (B, T, C)
    return y.view({b, -1, heads_, headSize_}).transpose(1, 2);                         // (B, H, T, hs)
}

torch::Tensor MultiHeadAttentionImpl::rotate(const torch::Tensor& t, int64_t pos0) const {
    if (ropeBase_ <= 0.0)
        return t;
    // Pairs (2i, 2i+1) turn by pos·θ_i with θ_i = base^(−2i/hs): the rotation the sinusoidal table encodes.
    const auto T = t.size(2);
    const auto opts = t.options();
    const auto inv =
        torch::pow(ropeBase_, -torch::arange(0, headSize_, 2, opts) / static_cast<double>(headSize_));
    const auto pos = torch::arange(pos0, pos0 + T, opts).unsqueeze(1); // (T, 1)
    const auto ang = pos * inv;                                        // (T, hs/2)
    const auto c = ang.cos(), s = ang.sin();
    const auto even = t.slice(-1, 0, headSize_, 2), odd = t.slice(-1, 1, headSize_, 2); // (B, H, T, hs/2)
    return torch::stack({even * c - odd * s, even * s + odd * c}, -1).flatten(-2);      // (B, H, T, hs)
}

namespace {

// LibTorch's CPU bmm multiplies tiny matrices (Tq·Tk·hs < 400) in one plain loop, and anything larger with
// one GEMM call per (batch, head) matrix, a few microseconds each. For training batches of short sequences
// (64 × 4 matrices of 14 × 14 × 16) those calls cost more than the arithmetic; a broadcast product and a
// sum do the same multiply-adds in a handful of vectorised ops. Above 4,096 products per matrix the
// broadcast temporaries cost more than the calls. Both bounds were measured on the training benchmark.
constexpr int64_t kBmmLoopBelow = 400;
constexpr int64_t kBroadcastUpTo = 4096;

bool useBroadcastProducts(int64_t tq, int64_t tk, int64_t hs) {
    const int64_t products = tq * tk * hs;
    return products >= kBmmLoopBelow && products <= kBroadcastUpTo;
}

} // namespace

torch::Tensor MultiHeadAttentionImpl::attend(const torch::Tensor& q, const torch::Tensor& k,
                                             const torch::Tensor& v, const torch::Tensor& mask,
                                             torch::Tensor* probs) {
    const auto b = q.size(0);
    const bool broadcast = useBroadcastProducts(q.size(2), k.size(2), headSize_);
    auto scores = broadcast ? (q.unsqueeze(3) * k.unsqueeze(2)).sum(-1) // (B, H, Tq, 1, hs)·(B, H, 1, Tk, hs)
                            : torch::matmul(q, k.transpose(-2, -1));    // (B, H, Tq, Tk)
    scores = scores / std::sqrt(static_cast<double>(headSize_));        // (B, H, Tq, Tk)
    if (mask.defined())
        scores = scores.masked_fill(mask.unsqueeze(1) == 0, -1e9); // mask (B, 1, 1|Tq, Tk)
    auto p = scores.softmax(-1);                                   // (B, H, Tq, Tk)
    if (probs)
        *probs = p;
    auto x = broadcast ? (p.unsqueeze(-1) * v.unsqueeze(2)).sum(3) // (B, H, Tq, Tk, 1)·(B, H, 1, Tk, hs)
                       : torch::matmul(p, v);                      // (B, H, Tq, hs)
    x = x.transpose(1, 2).contiguous().view({b, -1, heads_ * headSize_}); // (B, Tq, C)
    return linear(*linears[3]->as<torch::nn::Linear>(), x);               // (B, Tq, C)
}

torch::Tensor MultiHeadAttentionImpl::selfAttend(const torch::Tensor& x, const torch::Tensor& mask,
                                                 int64_t pos0, KvCache* cache, torch::Tensor* probs) {
    const auto q = rotate(project(0, x), pos0); // (B, H, Tq, hs)
    auto k = rotate(project(1, x), pos0);       // (B, H, Tq, hs)
    auto v = project(2, x);                     // (B, H, Tq, hs)
    if (cache) {
        cache->append(k, v);
        k = cache->keys();   // (B, H, Tk, hs)
        v = cache->values(); // (B, H, Tk, hs)
    }
    return attend(q, k, v, mask, probs);
}

torch::Tensor MultiHeadAttentionImpl::crossAttend(const torch::Tensor& x, const torch::Tensor& memory,
                                                  const torch::Tensor& mask, KvCache* cache,
                                                  torch::Tensor* probs) {
    const auto q = project(0, x); // (B, H, Tq, hs)
    if (cache && !cache->empty())
        return attend(q, cache->keys(), cache->values(), mask, probs);
    auto k = project(1, memory); // (B, H, S, hs)
    auto v = project(2, memory); // (B, H, S, hs)
    if (cache)
        cache->set(k, v);
    return attend(q, k, v, mask, probs);
}

} // namespace core::nn
