#pragma once
// Shapes: B batch, T time, C channels.

#include "core/model/nn/LayerNorm.h"

#include <functional>

namespace core::nn {

/// The seed's SublayerConnection: x + f(norm(x)) (pre-norm residual; dropout is off at inference).
class SublayerImpl : public torch::nn::Module {
public:
    SublayerImpl(int64_t dModel, LayerNormKind kind, double eps)
        : norm(register_module("norm", LayerNorm(dModel, kind, eps))) {}
    /// lastOnly: f returns only the last position's row, and so does this.
    template <typename F> torch::Tensor forward(const torch::Tensor& x, F&& f, bool lastOnly = false) {
        const auto y = f(norm(x));                                 // (B, T|1, C)
        return (lastOnly ? x.narrow(1, x.size(1) - 1, 1) : x) + y; // (B, T|1, C)
    }
    LayerNorm norm{nullptr};
};
TORCH_MODULE(Sublayer);

} // namespace core::nn
