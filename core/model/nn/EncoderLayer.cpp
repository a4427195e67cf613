#include "core/model/nn/EncoderLayer.h"

#include <torch/torch.h>

namespace core::nn {

EncoderLayerImpl::EncoderLayerImpl(const ModelConfig& c)
    : self_attn(register_module("self_attn", MultiHeadAttention(AttentionOptions::of(c, true)))),
      sublayer(register_module("sublayer", torch::nn::ModuleList())) {
    if (c.dFf > 0)
        feed_forward = register_module("feed_forward", FeedForward(c));
    for (int i = 0; i < (c.dFf > 0 ? 2 : 1); ++i)
        sublayer->push_back(Sublayer(c));
}

torch::Tensor EncoderLayerImpl::forward(const torch::Tensor& x, const torch::Tensor& mask,
                                        torch::Tensor* probs, const std::uint8_t* off,
                                        std::vector<torch::Tensor>* stream) {
    auto h = sublayer[0]->as<SublayerImpl>()->forward(x, [&](const torch::Tensor& n) {
        return self_attn->selfAttend(n, mask, 0, nullptr, probs, false, off);
    }); // (B, S, C)
    if (stream)
        stream->push_back(h);
    if (feed_forward.is_empty())
        return h; // attention-only
    h = sublayer[1]->as<SublayerImpl>()->forward(h, [&](const torch::Tensor& n) { return feed_forward(n); });
    if (stream)
        stream->push_back(h); // (B, S, C)
    return h;
}

} // namespace core::nn
