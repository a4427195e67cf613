#include "core/model/nn/FeedForward.h"

#include "core/model/nn/Linear.h"

#include <torch/torch.h>

#include <cmath>

namespace core::nn {

FeedForwardImpl::FeedForwardImpl(const ModelConfig& c)
    : w_1(register_module("w_1",
                          torch::nn::Linear(torch::nn::LinearOptions(c.dModel, c.dFf).bias(c.linearBias)))),
      w_2(register_module("w_2",
                          torch::nn::Linear(torch::nn::LinearOptions(c.dFf, c.dModel).bias(c.linearBias)))),
      activation_(c.activation) {
    if (c.gatedFeedForward)
        w_3 = register_module(
            "w_3", torch::nn::Linear(torch::nn::LinearOptions(c.dModel, c.dFf).bias(c.linearBias)));
}

torch::Tensor activate(Activation act, torch::Tensor h) {
    switch (act) {
    case Activation::Relu:
        // In place without autograd: no second (T, F) buffer to allocate and fill.
        return at::GradMode::is_enabled() ? h.relu() : h.relu_();
    case Activation::Gelu:
        return torch::gelu(h);
    case Activation::GeluTanh: {
        // Written out rather than gelu(approximate="tanh"), which LibTorch 1.13 and 2.x spell differently.
        const double k = std::sqrt(2.0 / M_PI);
        return 0.5 * h * (1.0 + torch::tanh(k * (h + 0.044715 * h.pow(3))));
    }
    case Activation::Silu:
        return torch::silu(h);
    }
    return h;
}

torch::Tensor FeedForwardImpl::forward(const torch::Tensor& x) {
    auto h = activate(activation_, linear(*w_1, x)); // (B, T, F)
    if (!w_3.is_empty())
        h = h * linear(*w_3, x); // (B, T, F): the gate times the up projection
    return linear(*w_2, h);      // (B, T, C)
}

} // namespace core::nn
