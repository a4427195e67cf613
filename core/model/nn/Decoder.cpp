#include "core/model/nn/Decoder.h"

#include "core/model/HeadAblation.h"

#include <torch/torch.h>

namespace core::nn {

DecoderImpl::DecoderImpl(const ModelConfig& c, bool withCross)
    : layers(register_module("layers", torch::nn::ModuleList())), heads_(c.heads) {
    if (!c.postNorm) // a post-norm layer already ends in its norm
        norm = register_module("norm", LayerNorm(c.dModel, c.layerNorm, c.normEps));
    for (int i = 0; i < c.decoderLayers; ++i)
        layers->push_back(DecoderLayer(c, withCross));
}

torch::Tensor DecoderImpl::forward(const torch::Tensor& x, const torch::Tensor& memory,
                                   const torch::Tensor& srcMask, const torch::Tensor& tgtMask, int64_t pos0,
                                   DecodeCache* cache, Capture* capture, bool lastOnly,
                                   const HeadAblation* ablation) {
    if (cache && cache->self.size() != layers->size()) {
        cache->self.resize(layers->size());
        cache->cross.resize(layers->size());
        for (auto* caches : {&cache->self, &cache->cross})
            for (auto& c : *caches)
                c.keepInputs = cache->keepInputs;
    }
    // Once per pass rather than in every layer (see additiveMask); autograd keeps the seed's masked_fill.
    const bool inference = !at::GradMode::is_enabled();
    const auto src = inference ? additiveMask(srcMask) : srcMask; // (B, 1, S)
    const auto tgt = inference ? additiveMask(tgtMask) : tgtMask; // (B, T, T)
    const auto count = static_cast<int>(layers->size());
    const bool probs = capture && capture->attention;
    auto* stream = capture && capture->keepStream ? &capture->stream : nullptr;
    if (stream) {
        stream->push_back(x); // (B, T, C)
        capture->streamPoints.emplace_back("embed");
    }
    auto h = x;
    for (std::size_t i = 0; i < layers->size(); ++i) {
        torch::Tensor selfProbs, crossProbs;
        const int l = static_cast<int>(i);
        if (probs) { // the attention writes into the capture's storage (layerSlot)
            const auto t = static_cast<int>(h.size(1));
            selfProbs = layerSlot(capture->decoderSelf, count, heads_, t,
                                  static_cast<int>(pos0) + t); // (1, H, T, Tk)
            if (!layers[i]->as<DecoderLayerImpl>()->src_attn.is_empty())
                crossProbs = layerSlot(capture->cross, count, heads_, t,
                                       static_cast<int>(memory.size(1))); // (1, H, T, S)
        }
        const auto selfOff =
            ablation ? ablation->layerMask(AttentionKind::Decoder, l, heads_) : std::vector<std::uint8_t>{};
        const auto crossOff =
            ablation ? ablation->layerMask(AttentionKind::Cross, l, heads_) : std::vector<std::uint8_t>{};
        h = layers[i]->as<DecoderLayerImpl>()->forward(
            h, memory, src, tgt, pos0, cache ? &cache->self[i] : nullptr, cache ? &cache->cross[i] : nullptr,
            probs ? &selfProbs : nullptr, probs ? &crossProbs : nullptr, lastOnly && i + 1 == layers->size(),
            selfOff.empty() ? nullptr : selfOff.data(), crossOff.empty() ? nullptr : crossOff.data(),
            stream); // (B, T, C), (B, 1, C) after the last with lastOnly
        if (probs) {
            appendLayer(capture->decoderSelf, selfProbs, count); // selfProbs (1, H, T, Tk)
            if (crossProbs.defined())
                appendLayer(capture->cross, crossProbs, count); // crossProbs (1, H, T, S)
        }
        if (stream) {
            const auto* layer = layers[i]->as<DecoderLayerImpl>();
            const auto name = std::to_string(l);
            capture->streamPoints.push_back(name + ".attn");
            if (!layer->src_attn.is_empty())
                capture->streamPoints.push_back(name + ".cross");
            if (!layer->feed_forward.is_empty())
                capture->streamPoints.push_back(name + ".mlp");
        }
        if (capture && capture->layerDone)
            capture->layerDone();
    }
    return norm ? norm(h) : h;
}

} // namespace core::nn
