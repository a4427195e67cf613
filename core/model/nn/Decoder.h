#pragma once
// Shapes: B batch, T target length (new tokens), S source length, C channels.

#include "core/model/nn/Capture.h"
#include "core/model/nn/DecoderLayer.h"

#include <vector>

namespace core {
class HeadAblation;
}

namespace core::nn {

/// Keys and values of every decoder layer, so a step costs one token's work.
struct DecodeCache {
    std::vector<KvCache> self;  // one per layer, grows by one position per step
    std::vector<KvCache> cross; // one per layer, the projected encoder memory
    /// Every layer's caches also keep the residual rows entering their sublayers (KvCache::keepInputs).
    bool keepInputs = false;
    int64_t length() const { return self.empty() ? 0 : self.front().length(); }
    void truncate(int64_t n) {
        for (auto& c : self) {
            c.k.truncate(n);
            c.v.truncate(n);
            c.inputs.truncate(n);
        }
        for (auto& c : cross) // the encoder memory's keys stay; the queries' rows go
            c.inputs.truncate(n);
    }
};

/// The seed's Decoder: N layers then a final norm (none after post-norm layers).
class DecoderImpl : public torch::nn::Module {
public:
    DecoderImpl(const ModelConfig& c, bool withCross);
    /// pos0: position of x's first token. cache: null for a full recompute. lastOnly: return only the last
    /// position's hidden state (B, 1, C), skipping the work no other output needs; capture is unchanged.
    torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& memory, const torch::Tensor& srcMask,
                          const torch::Tensor& tgtMask, int64_t pos0, DecodeCache* cache, Capture* capture,
                          bool lastOnly = false, const HeadAblation* ablation = nullptr);

    torch::nn::ModuleList layers{nullptr};
    LayerNorm norm{nullptr}; // null for post-norm layers

private:
    int heads_; // each layer's, for the ablation masks
};
TORCH_MODULE(Decoder);

} // namespace core::nn
