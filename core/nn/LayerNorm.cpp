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
    // The seed's formula, op for op: the unbiased std, and eps added to the std rather than the variance.
    const auto mean = x.mean(-1, true);                  // (B, T, 1)
    const auto std = x.std(-1, /*unbiased=*/true, true); // (B, T, 1)
    return a_2 * (x - mean) / (std + eps_) + b_2;        // (B, T, C)
}

} // namespace core::nn
