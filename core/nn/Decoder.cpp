#include "core/nn/Decoder.h"

#include <torch/torch.h>

namespace core::nn {

DecoderImpl::DecoderImpl(const ModelConfig& c, bool withCross)
    : layers(register_module("layers", torch::nn::ModuleList())),
      norm(register_module("norm", LayerNorm(c.dModel, c.layerNorm, c.normEps))) {
    for (int i = 0; i < c.decoderLayers; ++i)
        layers->push_back(DecoderLayer(c, withCross));
}

torch::Tensor DecoderImpl::forward(const torch::Tensor& x, const torch::Tensor& memory,
                                   const torch::Tensor& srcMask, const torch::Tensor& tgtMask, int64_t pos0,
                                   DecodeCache* cache, Capture* capture) {
    if (cache && cache->self.size() != layers->size()) {
        cache->self.resize(layers->size());
        cache->cross.resize(layers->size());
    }
    const auto count = static_cast<int>(layers->size());
    auto h = x;
    for (std::size_t i = 0; i < layers->size(); ++i) {
        torch::Tensor selfProbs, crossProbs;
        h = layers[i]->as<DecoderLayerImpl>()->forward(
            h, memory, srcMask, tgtMask, pos0, cache ? &cache->self[i] : nullptr,
            cache ? &cache->cross[i] : nullptr, capture ? &selfProbs : nullptr,
            capture ? &crossProbs : nullptr); // (B, T, C)
        if (capture) {
            appendLayer(capture->decoderSelf, selfProbs, count); // selfProbs (1, H, T, Tk)
            if (crossProbs.defined())
                appendLayer(capture->cross, crossProbs, count); // crossProbs (1, H, T, S)
        }
    }
    return norm(h);
}

} // namespace core::nn
