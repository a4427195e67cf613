#pragma once
// Shapes: B batch, T time, C channels (d_model), F hidden (d_ff).

#include "core/model/ModelConfig.h"

#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

namespace core::nn {

/// w_2(act(w_1 x)), the seed's PositionWiseFeedForward; gated (the Llama family's SwiGLU),
/// w_2(act(w_1 x) · w_3 x) with w_1 the gate and w_3 the up projection.
class FeedForwardImpl : public torch::nn::Module {
public:
    /// A block of c's shape: d_ff, activation, gating and biases.
    explicit FeedForwardImpl(const ModelConfig& c);
    torch::Tensor forward(const torch::Tensor& x); // (B, T, C) -> (B, T, C)

    torch::nn::Linear w_1{nullptr}, w_2{nullptr}, w_3{nullptr}; // w_3 only when gated

private:
    Activation activation_;
};
TORCH_MODULE(FeedForward);

/// act(h) for the config's activation; in place when autograd is off and the activation allows it.
torch::Tensor activate(Activation act, torch::Tensor h);

} // namespace core::nn
