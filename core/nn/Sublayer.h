#pragma once
// Shapes: B batch, T time, C channels.

#include "core/nn/LayerNorm.h"

#include <functional>

namespace core::nn {

/// The seed's SublayerConnection: x + f(norm(x)) (pre-norm residual; dropout is off at inference).
class SublayerImpl : public torch::nn::Module {
public:
    SublayerImpl(int64_t dModel, LayerNormKind kind, double eps)
        : norm(register_module("norm", LayerNorm(dModel, kind, eps))) {}
    template <typename F> torch::Tensor forward(const torch::Tensor& x, F&& f) {
        return x + f(norm(x)); // (B, T, C)
    }
    LayerNorm norm{nullptr};
};
TORCH_MODULE(Sublayer);

} // namespace core::nn
