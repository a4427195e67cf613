#include "core/model/nn/Encoder.h"

#include "core/model/HeadAblation.h"

#include <torch/torch.h>

namespace core::nn {

EncoderImpl::EncoderImpl(const ModelConfig& c)
    : layers(register_module("layers", torch::nn::ModuleList())), heads_(c.heads) {
    if (!c.postNorm) // a post-norm layer already ends in its norm
        norm = register_module("norm", LayerNorm(c.dModel, c.layerNorm, c.normEps));
    for (int i = 0; i < c.encoderLayers; ++i)
        layers->push_back(EncoderLayer(c));
}

torch::Tensor EncoderImpl::forward(const torch::Tensor& x, const torch::Tensor& mask, Capture* capture,
                                   const HeadAblation* ablation) {
    const auto count = static_cast<int>(layers->size());
    // Once per pass rather than in every layer (see additiveMask); autograd keeps the seed's masked_fill.
    const auto m = at::GradMode::is_enabled() ? mask : additiveMask(mask); // (B, 1, S)
    const bool probs = capture && capture->attention;
    auto* stream = capture && capture->keepStream ? &capture->stream : nullptr;
    if (stream) {
        stream->push_back(x); // (B, S, C)
        capture->streamPoints.emplace_back("embed");
    }
    auto h = x;
    int index = 0;
    for (const auto& layer : *layers) {
        const auto name = std::to_string(index);
        const auto off = ablation ? ablation->layerMask(AttentionKind::Encoder, index++, heads_)
                                  : std::vector<std::uint8_t>{};
        const auto s = static_cast<int>(h.size(1));
        // The attention writes its probabilities into the capture's storage (layerSlot).
        auto weights =
            probs ? layerSlot(capture->encoderSelf, count, heads_, s, s) : torch::Tensor(); // (1, H, S, S)
        if (capture && capture->keepInputs)
            capture->encoderInputs.push_back(h); // (B, S, C)
        h = layer->as<EncoderLayerImpl>()->forward(h, m, probs ? &weights : nullptr,
                                                   off.empty() ? nullptr : off.data(), stream); // (B, S, C)
        if (probs)
            appendLayer(capture->encoderSelf, weights, count); // weights (1, H, S, S)
        if (stream) {
            capture->streamPoints.push_back(name + ".attn");
            if (!layer->as<EncoderLayerImpl>()->feed_forward.is_empty())
                capture->streamPoints.push_back(name + ".mlp");
        }
        if (capture && capture->layerDone)
            capture->layerDone();
    }
    return norm ? norm(h) : h;
}

} // namespace core::nn
