#include "core/model/nn/MultiHeadAttention.h"

#include "core/base/FloatPool.h"
#include "core/model/nn/HeadJobs.h"
#include "core/model/nn/Linear.h"
#include "core/model/nn/PackedLinear.h"

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <mutex>

namespace core::nn {

namespace {

torch::nn::LinearImpl& linearAt(torch::nn::ModuleList& list, int index) {
    return *list[static_cast<size_t>(index)]->as<torch::nn::Linear>();
}

// The parts as one tensor of their rows stacked, when they are contiguous slices with the same trailing
// sizes lying back to back in one storage, as the constructor lays them out; undefined otherwise. A view,
// never a copy: it reads the parameters themselves, so it cannot go stale whatever writes to them.
torch::Tensor backToBack(const std::vector<torch::Tensor>& parts) {
    const auto& head = parts.front();
    if (!head.defined() || head.dim() == 0)
        return {};
    const auto* expected = static_cast<const char*>(head.data_ptr());
    int64_t rows = 0;
    for (const auto& t : parts) {
        if (!t.defined() || !t.is_contiguous() || t.dim() != head.dim() ||
            t.sizes().slice(1) != head.sizes().slice(1) || t.dtype() != head.dtype() ||
            !t.storage().is_alias_of(head.storage()) || static_cast<const char*>(t.data_ptr()) != expected)
            return {};
        expected += t.nbytes();
        rows += t.size(0);
    }
    std::vector<int64_t> sizes{rows};
    sizes.insert(sizes.end(), head.sizes().begin() + 1, head.sizes().end());
    return head.as_strided(sizes, head.strides()); // (rows, C) or (rows)
}

} // namespace

AttentionOptions AttentionOptions::of(const ModelConfig& c, bool self) {
    AttentionOptions o;
    o.dModel = c.dModel;
    o.heads = c.heads;
    o.kvHeads = self ? c.keyValueHeads() : c.heads;
    o.qkvBias = c.qkvBias;
    o.outBias = c.linearBias;
    if (self && c.positional == PositionalEncoding::Rope) {
        o.ropeBase = c.ropeBase;
        o.ropeStyle = c.ropeStyle;
        o.ropeScaling = c.ropeScaling;
    }
    return o;
}

MultiHeadAttentionImpl::MultiHeadAttentionImpl(const AttentionOptions& o)
    : linears(register_module("linears", torch::nn::ModuleList())), heads_(o.heads), kvHeads_(o.kvHeads),
      headSize_(o.dModel / o.heads), ropeStyle_(o.ropeStyle), gram_(std::make_shared<GramCache>()) {
    const int64_t C = o.dModel, kv = kvHeads_ * headSize_;
    linears->push_back(torch::nn::Linear(torch::nn::LinearOptions(C, C).bias(o.qkvBias)));  // q
    linears->push_back(torch::nn::Linear(torch::nn::LinearOptions(C, kv).bias(o.qkvBias))); // k
    linears->push_back(torch::nn::Linear(torch::nn::LinearOptions(C, kv).bias(o.qkvBias))); // v
    linears->push_back(torch::nn::Linear(torch::nn::LinearOptions(C, C).bias(o.outBias)));  // out
    if (o.ropeBase > 0.0) {
        const auto theta = ropeFrequencies(o.ropeBase, static_cast<int>(headSize_), o.ropeScaling);
        theta_ = torch::tensor(theta, torch::kFloat64).to(torch::kFloat32); // (hs/2)
    }
    // Rebase the q, k, v parameters onto slices of one buffer (values unchanged, so initialisation draws the
    // same numbers as before); projectMany then multiplies by all three at once.
    torch::NoGradGuard noGrad;
    std::vector<torch::Tensor> weights, biases;
    for (int i = 0; i < 3; ++i) {
        weights.push_back(linearAt(linears, i).weight);
        biases.push_back(linearAt(linears, i).bias);
    }
    const auto w = torch::cat(weights); // (C + 2·kv, C)
    const auto b = o.qkvBias ? torch::cat(biases) : torch::Tensor();
    for (int i = 0, row = 0; i < 3; ++i) {
        const auto n = i == 0 ? C : kv;
        linearAt(linears, i).weight.set_data(w.narrow(0, row, n)); // (C|kv, C)
        if (b.defined())
            linearAt(linears, i).bias.set_data(b.narrow(0, row, n)); // (C|kv)
        row += static_cast<int>(n);
    }
}

struct MultiHeadAttentionImpl::GramCache {
    std::mutex mutex;
    torch::Tensor gram;         // (H, hs, hs)
    const void* data = nullptr; // the weights it was made from: their storage …
    int64_t version = -1;       // … and their version counter (bumped by every in-place write)
};

torch::Tensor MultiHeadAttentionImpl::outputGram() const {
    torch::NoGradGuard noGrad;
    const auto& w = linears.ptr()->at<torch::nn::LinearImpl>(3).weight; // (C, C): x Wᵀ, heads side by side
    std::lock_guard<std::mutex> lock(gram_->mutex);
    if (!gram_->gram.defined() || gram_->data != w.data_ptr() || gram_->version != versionOf(w)) {
        const auto wh =
            w.to(torch::kFloat32).view({w.size(0), heads_, headSize_}).permute({1, 0, 2}); // (H, C, hs)
        gram_->gram = torch::bmm(wh.transpose(1, 2), wh).contiguous();                     // (H, hs, hs)
        gram_->data = w.data_ptr();
        gram_->version = versionOf(w);
    }
    return gram_->gram;
}

torch::Tensor MultiHeadAttentionImpl::project(int index, const torch::Tensor& x) {
    const auto b = x.size(0);
    auto y = linear(linearAt(linears, index), x);                                  // (B, T, C|kv)
    const auto heads = y.view({b, -1, headsOf(index), headSize_}).transpose(1, 2); // (B, H|kvH, T, hs)
    return headsOf(index) == heads_ ? heads : repeatKv(heads);                     // (B, H, T, hs)
}

torch::Tensor MultiHeadAttentionImpl::repeatKv(const torch::Tensor& t) const {
    if (kvHeads_ == heads_)
        return t;
    const auto b = t.size(0), tk = t.size(2), r = heads_ / kvHeads_;
    return t.unsqueeze(2).expand({b, kvHeads_, r, tk, headSize_}).reshape({b, heads_, tk, headSize_});
}

torch::Tensor MultiHeadAttentionImpl::projectHeads(int index, const torch::Tensor& x, int64_t first,
                                                   int64_t count) {
    TORCH_INTERNAL_ASSERT(headsOf(index) == heads_,
                          "projectHeads takes queries, or ungrouped keys and values");
    const auto& lin = linearAt(linears, index);
    const auto rows = first * headSize_, width = count * headSize_;
    const auto bias = lin.bias.defined() ? lin.bias.narrow(0, rows, width) : torch::Tensor();
    auto y = linear(x, lin.weight.narrow(0, rows, width), bias);      // (B, T, count·hs)
    return y.view({x.size(0), -1, count, headSize_}).transpose(1, 2); // (B, count, T, hs)
}

std::vector<torch::Tensor> MultiHeadAttentionImpl::projectMany(int first, int count, const torch::Tensor& x) {
    // Autograd keeps the separate products: their gradients must reach the separate parameters.
    if (!at::GradMode::is_enabled()) {
        std::vector<torch::Tensor> weights, biases;
        for (int i = first; i < first + count; ++i) {
            weights.push_back(linearAt(linears, i).weight);
            biases.push_back(linearAt(linears, i).bias);
        }
        // Fused when the weights lie back to back and the biases either do too or are all absent.
        const bool unbiased =
            std::none_of(biases.begin(), biases.end(), [](const torch::Tensor& t) { return t.defined(); });
        const auto w = backToBack(weights);                             // (rows, C)
        const auto b = unbiased ? torch::Tensor() : backToBack(biases); // (rows)
        if (w.defined() && (unbiased || b.defined())) {
            int64_t version = 0; // the view's own counter does not move when a part is written
            for (int i = 0; i < count; ++i)
                version +=
                    versionOf(weights[static_cast<size_t>(i)]) + versionOf(biases[static_cast<size_t>(i)]);
            const auto y = linear(x, w, b, version); // (B, T, rows)
            std::vector<torch::Tensor> out;
            for (int i = first, col = 0; i < first + count; ++i) {
                const auto n = headsOf(i);
                out.push_back(y.narrow(-1, col, n * headSize_)
                                  .view({x.size(0), -1, n, headSize_})
                                  .transpose(1, 2)); // (B, n, T, hs)
                col += static_cast<int>(n * headSize_);
            }
            return out;
        }
    }
    std::vector<torch::Tensor> out;
    for (int i = first; i < first + count; ++i) {
        const auto y = linear(linearAt(linears, i), x);                                // (B, T, n·hs)
        out.push_back(y.view({x.size(0), -1, headsOf(i), headSize_}).transpose(1, 2)); // (B, n, T, hs)
    }
    return out;
}

torch::Tensor MultiHeadAttentionImpl::rotate(const torch::Tensor& t, int64_t pos0) const {
    if (!theta_.defined())
        return t;
    const auto T = t.size(2), half = headSize_ / 2;
    const auto pos = torch::arange(pos0, pos0 + T, t.options()).unsqueeze(1); // (T, 1)
    const auto ang = pos * theta_.to(t.options());                            // (T, hs/2)
    const auto c = ang.cos(), s = ang.sin();
    if (ropeStyle_ == RopeStyle::Halves) {
        // Dimension i turns with i + hs/2 (Hugging Face's rotate_half).
        const auto a = t.narrow(-1, 0, half), b = t.narrow(-1, half, half); // (B, H, T, hs/2)
        return torch::cat({a * c - b * s, b * c + a * s}, -1);              // (B, H, T, hs)
    }
    // Pairs (2i, 2i+1) turn by pos·θ_i: the rotation the sinusoidal table encodes.
    const auto even = t.slice(-1, 0, headSize_, 2), odd = t.slice(-1, 1, headSize_, 2); // (B, H, T, hs/2)
    return torch::stack({even * c - odd * s, even * s + odd * c}, -1).flatten(-2);      // (B, H, T, hs)
}

torch::Tensor additiveMask(const torch::Tensor& mask) {
    if (!mask.defined() || mask.is_floating_point())
        return mask;
    // A source without padding blocks nothing; adding zeros would cost a pass over every score buffer.
    if (mask.all().item<bool>())
        return {};
    return torch::where(mask, 0.0, kBlockedScore); // (B, 1|Tq, Tk)
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

torch::Tensor MultiHeadAttentionImpl::attendWithAutograd(const torch::Tensor& q, const torch::Tensor& k,
                                                         const torch::Tensor& v, const torch::Tensor& mask,
                                                         torch::Tensor* probs, const std::uint8_t* off) {
    const auto b = q.size(0);
    const bool broadcast = useBroadcastProducts(q.size(2), k.size(2), headSize_);
    auto scores = broadcast ? (q.unsqueeze(3) * k.unsqueeze(2)).sum(-1) // (B, H, Tq, 1, hs)·(B, H, 1, Tk, hs)
                            : torch::matmul(q, k.transpose(-2, -1));    // (B, H, Tq, Tk)
    scores = scores / std::sqrt(static_cast<double>(headSize_));        // (B, H, Tq, Tk)
    if (mask.defined())
        scores = mask.is_floating_point() ? scores + mask.unsqueeze(1) // mask (B, 1, 1|Tq, Tk)
                                          : scores.masked_fill(mask.unsqueeze(1) == 0, kBlockedScore);
    auto p = scores.softmax(-1); // (B, H, Tq, Tk)
    if (probs)
        *probs = p;
    auto x = broadcast ? (p.unsqueeze(-1) * v.unsqueeze(2)).sum(3) // (B, H, Tq, Tk, 1)·(B, H, 1, Tk, hs)
                       : torch::matmul(p, v);                      // (B, H, Tq, hs)
    if (off) {
        std::vector<float> keep(static_cast<std::size_t>(heads_));
        for (int64_t h = 0; h < heads_; ++h)
            keep[static_cast<std::size_t>(h)] = off[h] ? 0.0f : 1.0f;
        x = x * torch::tensor(keep, x.options()).view({1, heads_, 1, 1}); // (B, H, Tq, hs)
    }
    x = x.transpose(1, 2).contiguous().view({b, -1, heads_ * headSize_}); // (B, Tq, C)
    return linear(linearAt(linears, 3), x);                               // (B, Tq, C)
}

// Without autograd the heads run as jobs (HeadJobs.h), writing the probabilities into p (a capture's slot
// when one is passed) and each head's output straight into its columns of linears[3]'s input.
torch::Tensor MultiHeadAttentionImpl::attend(const torch::Tensor& q, const torch::Tensor& k,
                                             const torch::Tensor& v, const torch::Tensor& mask,
                                             torch::Tensor* probs, bool lastOnly, const std::uint8_t* off) {
    if (at::GradMode::is_enabled()) {
        const auto x = attendWithAutograd(q, k, v, mask, probs, off); // (B, Tq, C)
        return lastOnly ? x.narrow(1, x.size(1) - 1, 1) : x;
    }
    const auto b = q.size(0), tk = k.size(2), bh = b * heads_, hs = headSize_;
    auto q3 = q.reshape({bh, -1, hs}); // (B·H, Tq, hs)
    // Without capture, the other queries' scores are never looked at.
    if (lastOnly && !probs && q3.size(1) > 1)
        q3 = q3.narrow(1, q3.size(1) - 1, 1); // (B·H, 1, hs)
    const auto tq = q3.size(1), rows = lastOnly ? 1 : tq;
    auto m = additiveMask(mask); // (B, 1|Tq, Tk)
    if (m.defined() && m.size(1) > tq)
        m = m.narrow(1, m.size(1) - tq, tq); // (B, Tq, Tk): the rows of the queries kept
    const double scale = 1.0 / std::sqrt(static_cast<double>(hs));
    // A capture's layerSlot(), when the caller passes one, takes the probabilities as they are computed.
    const bool intoSlot = probs && probs->defined() && probs->numel() == bh * tq * tk &&
                          probs->is_contiguous() && probs->dtype() == q.dtype() &&
                          probs->device() == q.device();
    // Otherwise the probabilities are scratch: pooled memory (FloatPool), which a long input would otherwise
    // fault in afresh for every layer (16 MB a layer at T = 1,024 of the default shape; 201 MB for GPT-2
    // small's at 2,048, where a compact capture converts them to float16 after this returns).
    std::vector<float> scratch;
    torch::Tensor p; // (B·H, Tq, Tk)
    const auto cells = static_cast<std::size_t>(bh * tq * tk);
    if (intoSlot) {
        p = probs->view({bh, tq, tk});
    } else if (q.is_cpu() && q.scalar_type() == torch::kFloat32 &&
               cells * sizeof(float) >= FloatPool::kMinBytes) {
        if (probs) { // handed to the caller: the tensor gives the buffer back when its last user drops it
            auto* held = new std::vector<float>(FloatPool::shared().take(cells));
            p = torch::from_blob(
                held->data(), {bh, tq, tk},
                [held](void*) {
                    FloatPool::shared().give(*held);
                    delete held;
                },
                q.options());
        } else {
            scratch = FloatPool::shared().take(cells);
            p = torch::from_blob(scratch.data(), {bh, tq, tk}, q.options());
        }
    } else {
        p = torch::empty({bh, tq, tk}, q.options());
    }
    auto x = torch::empty({b, rows, heads_ * hs}, q.options());            // (B, rows, C)
    const auto k3 = k.reshape({bh, tk, hs}), v3 = v.reshape({bh, tk, hs}); // (B·H, Tk, hs)
    if (!attendHeadsRaw(q3, k3, v3, m, heads_, scale, off, p, x))
        attendHeadsTorch(q3, k3, v3, m, heads_, scale, off, p, x);
    if (probs && !intoSlot)
        *probs = p.view({b, heads_, tq, tk});
    p = torch::Tensor(); // no view of the scratch outlives it
    FloatPool::shared().give(scratch);
    return linear(linearAt(linears, 3), x); // (B, rows, C)
}

torch::Tensor MultiHeadAttentionImpl::selfAttend(const torch::Tensor& x, const torch::Tensor& mask,
                                                 int64_t pos0, KvCache* cache, torch::Tensor* probs,
                                                 bool lastOnly, const std::uint8_t* off) {
    const auto qkv = projectMany(0, 3, x); // (B, H, Tq, hs), 2 × (B, kvH, Tq, hs)
    const auto q = rotate(qkv[0], pos0);
    auto k = repeatKv(rotate(qkv[1], pos0)); // (B, H, Tq, hs)
    auto v = repeatKv(qkv[2]);               // (B, H, Tq, hs)
    if (cache) {
        cache->append(k, v);
        k = cache->keys();   // (B, H, Tk, hs)
        v = cache->values(); // (B, H, Tk, hs)
    }
    return attend(q, k, v, mask, probs, lastOnly, off);
}

torch::Tensor MultiHeadAttentionImpl::crossAttend(const torch::Tensor& x, const torch::Tensor& memory,
                                                  const torch::Tensor& mask, KvCache* cache,
                                                  torch::Tensor* probs, bool lastOnly,
                                                  const std::uint8_t* off) {
    // Without capture only the last query matters, and its projection is one matrix-vector product.
    const auto q = project(0, lastOnly && !probs ? x.narrow(1, x.size(1) - 1, 1) : x); // (B, H, Tq, hs)
    if (cache && !cache->empty())
        return attend(q, cache->keys(), cache->values(), mask, probs, lastOnly, off);
    const auto kv = projectMany(1, 2, memory); // 2 × (B, H, S, hs): cross-attention is never grouped
    if (cache)
        cache->set(kv[0], kv[1]);
    return attend(q, kv[0], kv[1], mask, probs, lastOnly, off);
}

} // namespace core::nn
