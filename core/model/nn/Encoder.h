#pragma once
// Shapes: B batch, S source length, C channels.

#include "core/model/nn/Capture.h"
#include "core/model/nn/EncoderLayer.h"

namespace core {
class HeadAblation;
}

namespace core::nn {

/// The seed's Encoder: N layers then a final norm (none after post-norm layers).
class EncoderImpl : public torch::nn::Module {
public:
    explicit EncoderImpl(const ModelConfig& c);
    /// ablation: heads whose output is zeroed (its encoder heads are read), or null.
    torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& mask, Capture* capture,
                          const HeadAblation* ablation = nullptr); // (B, S, C)

    torch::nn::ModuleList layers{nullptr};
    LayerNorm norm{nullptr}; // null for post-norm layers

private:
    int heads_; // each layer's, for the ablation masks
};
TORCH_MODULE(Encoder);

} // namespace core::nn
