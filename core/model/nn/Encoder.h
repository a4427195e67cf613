#pragma once
// Shapes: B batch, S source length, C channels.

#include "core/model/nn/Capture.h"
#include "core/model/nn/EncoderLayer.h"

namespace core::nn {

/// The seed's Encoder: N layers then a final norm.
class EncoderImpl : public torch::nn::Module {
public:
    explicit EncoderImpl(const ModelConfig& c);
    torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& mask, Capture* capture); // (B, S, C)

    torch::nn::ModuleList layers{nullptr};
    LayerNorm norm{nullptr};
};
TORCH_MODULE(Encoder);

} // namespace core::nn
