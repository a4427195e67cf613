#include "core/model/nn/TokenEmbedding.h"

#include <torch/torch.h>

#include <cmath>

namespace core::nn {

TokenEmbeddingImpl::TokenEmbeddingImpl(int64_t vocab, int64_t dModel, bool scale)
    : lut(register_module("lut", torch::nn::Embedding(vocab, dModel))),
      scale_(scale ? std::sqrt(static_cast<double>(dModel)) : 1.0) {}

torch::Tensor TokenEmbeddingImpl::forward(const torch::Tensor& ids) {
    auto x = lut(ids); // (B, T, C)
    return scale_ == 1.0 ? x : x * scale_;
}

} // namespace core::nn
