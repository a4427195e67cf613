#pragma once
// Shapes: B batch, T time, C channels.

#include "core/model/nn/LayerNorm.h"

#include <functional>

namespace core::nn {

/// The seed's SublayerConnection: x + f(norm(x)) (pre-norm residual; dropout is off at inference); or,
/// post-norm (the original Transformer's order, kept by BERT and Marian), norm(x + f(x)).
class SublayerImpl : public torch::nn::Module {
public:
    explicit SublayerImpl(const ModelConfig& c)
        : norm(register_module("norm", LayerNorm(c.dModel, c.layerNorm, c.normEps))), post_(c.postNorm) {}
    /// lastOnly: f returns only the last position's row, and so does this.
    template <typename F> torch::Tensor forward(const torch::Tensor& x, F&& f, bool lastOnly = false) {
        const auto y = f(post_ ? x : norm(x));                               // (B, T|1, C)
        const auto sum = (lastOnly ? x.narrow(1, x.size(1) - 1, 1) : x) + y; // (B, T|1, C)
        return post_ ? norm(sum) : sum;
    }
    /// What f was handed for rows x: norm(x) before the sublayer, or x itself when the norm comes after.
    torch::Tensor input(const torch::Tensor& x) { return post_ ? x : norm(x); }
    bool postNorm() const { return post_; }
    LayerNorm norm{nullptr};

private:
    bool post_;
};
TORCH_MODULE(Sublayer);

} // namespace core::nn
