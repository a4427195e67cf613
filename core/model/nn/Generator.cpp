#include "core/model/nn/Generator.h"

#include "core/model/nn/FeedForward.h"
#include "core/model/nn/Linear.h"

#include <torch/torch.h>

namespace core::nn {

GeneratorImpl::GeneratorImpl(const ModelConfig& c, torch::Tensor tiedWeight)
    : tied_(std::move(tiedWeight)), activation_(c.activation) {
    const int64_t C = c.dModel, V = c.tgtVocabSize;
    if (!tied_.defined())
        proj = register_module("proj", torch::nn::Linear(torch::nn::LinearOptions(C, V).bias(c.outputBias)));
    else if (c.tiedOutputBias)
        bias = register_parameter("bias", torch::zeros({V}));
    if (c.maskedLmHead) {
        dense = register_module("dense", torch::nn::Linear(C, C));
        norm = register_module("norm", LayerNorm(C, c.layerNorm, c.normEps));
    }
}

torch::Tensor GeneratorImpl::logits(const torch::Tensor& x) {
    const auto h = dense ? norm(activate(activation_, linear(*dense, x))) : x; // (B, T, C)
    return tied_.defined() ? linear(h, tied_, bias) : linear(*proj, h);        // (B, T, V)
}

torch::Tensor GeneratorImpl::forward(const torch::Tensor& x) {
    return torch::log_softmax(logits(x), -1);
}

} // namespace core::nn
