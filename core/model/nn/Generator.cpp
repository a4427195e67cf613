#include "core/model/nn/Generator.h"

#include "core/model/nn/Linear.h"

#include <torch/torch.h>

namespace core::nn {

GeneratorImpl::GeneratorImpl(int64_t dModel, int64_t vocab, torch::Tensor tiedWeight, bool bias)
    : tied_(std::move(tiedWeight)) {
    if (!tied_.defined())
        proj = register_module("proj", torch::nn::Linear(torch::nn::LinearOptions(dModel, vocab).bias(bias)));
}

torch::Tensor GeneratorImpl::logits(const torch::Tensor& x) {
    return tied_.defined() ? linear(x, tied_, torch::Tensor()) : linear(*proj, x); // (B, T, V)
}

torch::Tensor GeneratorImpl::forward(const torch::Tensor& x) {
    return torch::log_softmax(logits(x), -1);
}

} // namespace core::nn
