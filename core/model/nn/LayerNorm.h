#pragma once
// Shapes: B batch, T time, C channels (d_model).

#include "core/model/ModelConfig.h"

#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

namespace core::nn {

/// Every flavour keeps the seed's parameter names a_2 (gain) and b_2 (bias) so checkpoints map one to one;
/// RMSNorm has no bias (b_2 undefined).
class LayerNormImpl : public torch::nn::Module {
public:
    LayerNormImpl(int64_t features, LayerNormKind kind, double eps);
    torch::Tensor forward(const torch::Tensor& x); // (B, T, C) -> (B, T, C)
    /// The norm of x (…, C) as a linear map frozen at x's own scale, applied to parts (N, …, C) that sum to
    /// x: a ⊙ centre(part) / scale(x) for each (no centring for RMSNorm), so that their sum plus b_2 is
    /// forward(x). What direct logit attribution reads each component through: the scale as measured, not
    /// as it would move if one part were taken away.
    torch::Tensor frozenLinear(const torch::Tensor& parts, const torch::Tensor& x) const; // (N, …, C)

    torch::Tensor a_2, b_2;

private:
    torch::Tensor seedNormRows(const torch::Tensor& x) const; // the Seed kind without autograd, float32 CPU

    LayerNormKind kind_;
    double eps_;
    int64_t features_;
};
TORCH_MODULE(LayerNorm);

} // namespace core::nn
