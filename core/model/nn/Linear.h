#pragma once
// Shapes: B batch, T time, C in features, F out features.

#include "core/model/nn/PackedLinear.h"

#include <ATen/core/grad_mode.h>
#include <torch/nn/modules/linear.h>

namespace core::nn {

/// x Wᵀ + b for a weight (F, C) and an optional bias (F).
///
/// Many rows go through ATen's linear, which folds (B, T, C) into one addmm with the bias fused (one
/// AddmmBackward in training). LibTorch 1.13's torch::nn::Linear::forward instead runs matmul and then adds
/// the bias in place: one more op each way, on every projection of every layer.
///
/// Without autograd, the product goes through the weight packed once (PackedLinear.h); `version` is the sum
/// of the version counters of the tensors w and b are made of, when they are views of several.
///
/// Failing that, one row without autograd (a KV-cached decode step) is a matrix-vector product: gemm packs
/// the whole weight matrix on every call, which for the 8000 × 256 output projection cost three times the
/// addmv.
inline torch::Tensor linear(const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b,
                            int64_t version) {
    if (!at::GradMode::is_enabled()) {
        if (auto y = packedLinear(x, w, b, version); y.defined())
            return y; // (..., F)
    }
    if (x.numel() == w.size(1) && !at::GradMode::is_enabled()) {
        const auto v = x.reshape({-1});                                       // (C)
        const auto y = b.defined() ? torch::addmv(b, w, v) : torch::mv(w, v); // (F)
        auto shape = x.sizes().vec();
        shape.back() = w.size(0);
        return y.view(shape); // (..., 1, F)
    }
    return torch::linear(x, w, b); // (B, T, C) -> (B, T, F)
}

inline torch::Tensor linear(const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b) {
    return linear(x, w, b, versionOf(w) + versionOf(b)); // (B, T, C) -> (B, T, F)
}

inline torch::Tensor linear(const torch::nn::LinearImpl& l, const torch::Tensor& x) {
    return linear(x, l.weight, l.bias); // (B, T, C) -> (B, T, F)
}

} // namespace core::nn
