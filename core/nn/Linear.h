#pragma once
// Shapes: B batch, T time, C in features, F out features.

#include <torch/nn/modules/linear.h>

namespace core::nn {

/// x Wᵀ + b through ATen's linear, which folds (B, T, C) into one addmm with the bias fused (one
/// AddmmBackward in training). LibTorch 1.13's torch::nn::Linear::forward instead runs matmul and then
/// adds the bias in place: one more op each way, on every projection of every layer.
inline torch::Tensor linear(const torch::nn::LinearImpl& l, const torch::Tensor& x) {
    return torch::linear(x, l.weight, l.bias); // (B, T, C) -> (B, T, F)
}

} // namespace core::nn
