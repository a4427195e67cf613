#include "core/nn/LayerNorm.h"

#include <torch/torch.h>

namespace core::nn {

LayerNormImpl::LayerNormImpl(int64_t features, LayerNormKind kind, double eps)
    : kind_(kind), eps_(eps), features_(features) {
    a_2 = register_parameter("a_2", torch::ones({features}));
    b_2 = register_parameter("b_2", torch::zeros({features}));
}

torch::Tensor LayerNormImpl::forward(const torch::Tensor& x) {
    if (kind_ == LayerNormKind::Standard)
        return torch::layer_norm(x, {features_}, a_2, b_2, eps_);
    // The seed's formula: the unbiased std, and eps added to the std rather than the variance. The std is
    // computed from the centred values the formula needs anyway: aten::std's own reduction costs more
    // than the four ops here together, forward and backward (measured: 360 µs against 620 µs per norm).
    const auto centred = x - x.mean(-1, true); // (B, T, C)
    const auto std =
        (centred * centred).sum(-1, true).div_(static_cast<double>(features_ - 1)).sqrt_(); // (B, T, 1)
    return a_2 * centred / (std + eps_) + b_2;                                              // (B, T, C)
}

} // namespace core::nn
