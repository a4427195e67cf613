#include "core/model/nn/DecoderLayer.h"

#include <torch/torch.h>

namespace core::nn {

DecoderLayerImpl::DecoderLayerImpl(const ModelConfig& c, bool withCross) {
    self_attn = register_module("self_attn", MultiHeadAttention(AttentionOptions::of(c, true)));
    // Cross-attention is position-free: rotary angles belong to self-attention only.
    if (withCross)
        src_attn = register_module("src_attn", MultiHeadAttention(AttentionOptions::of(c, false)));
    if (c.dFf > 0)
        feed_forward = register_module("feed_forward", FeedForward(c));
    sublayer = register_module("sublayer", torch::nn::ModuleList());
    for (int i = 0; i < (withCross ? 2 : 1) + (c.dFf > 0 ? 1 : 0); ++i)
        sublayer->push_back(Sublayer(c));
}

torch::Tensor DecoderLayerImpl::forward(const torch::Tensor& x, const torch::Tensor& memory,
                                        const torch::Tensor& srcMask, const torch::Tensor& tgtMask,
                                        int64_t pos0, KvCache* selfCache, KvCache* crossCache,
                                        torch::Tensor* selfProbs, torch::Tensor* crossProbs, bool lastOnly,
                                        const std::uint8_t* selfOff, const std::uint8_t* crossOff,
                                        std::vector<torch::Tensor>* stream) {
    const auto keep = [stream](const torch::Tensor& h) {
        if (stream)
            stream->push_back(h); // (B, T, C)
        return h;
    };
    const bool cross = !src_attn.is_empty();
    // Every position's self-attention output is a query of the cross-attention, whose probabilities a
    // capture records for every query; without a capture, the last row is all that is needed from here on.
    const bool selfLast = lastOnly && (!cross || !crossProbs);
    std::size_t i = 0;
    if (selfCache)
        selfCache->keepInput(x);
    auto h = sublayer[i++]->as<SublayerImpl>()->forward(
        x,
        [&](const torch::Tensor& n) {
            return self_attn->selfAttend(n, tgtMask, pos0, selfCache, selfProbs, selfLast, selfOff);
        },
        selfLast); // (B, T|1, C)
    keep(h);
    if (cross && crossCache) {
        TORCH_INTERNAL_ASSERT(!crossCache->keepInputs || h.size(1) == x.size(1),
                              "kept cross-attention inputs need every position's row");
        crossCache->keepInput(h);
    }
    if (cross)
        h = sublayer[i++]->as<SublayerImpl>()->forward(
            h,
            [&](const torch::Tensor& n) {
                return src_attn->crossAttend(n, memory, srcMask, crossCache, crossProbs, lastOnly, crossOff);
            },
            lastOnly); // (B, T|1, C)
    if (cross)
        keep(h);
    if (feed_forward.is_empty())
        return h; // attention-only
    return keep(sublayer[i]->as<SublayerImpl>()->forward(
        h, [&](const torch::Tensor& n) { return feed_forward(n); })); // (B, T|1, C)
}

} // namespace core::nn
