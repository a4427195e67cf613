#pragma once
// Tensors to plain host data, for the torch-free values core hands out (InsideRow, the recurrent nets'
// results). Only core's torch sources include this.

#include "core/base/Matrix.h"

#include <torch/types.h>

#include <vector>

namespace core::nn {

/// Every value of t, as float32 in row-major order.
inline std::vector<float> hostFloats(const torch::Tensor& t) {
    const auto c = t.to(torch::kCPU, torch::kFloat32).contiguous();
    return {c.data_ptr<float>(), c.data_ptr<float>() + c.numel()};
}

/// A 2-D tensor (rows, cols) as a Matrix.
inline Matrix hostMatrix(const torch::Tensor& t) {
    Matrix m(static_cast<int>(t.size(0)), static_cast<int>(t.size(1)));
    m.data = hostFloats(t);
    return m;
}

} // namespace core::nn
