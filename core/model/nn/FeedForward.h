#pragma once
// Shapes: B batch, T time, C channels (d_model), F hidden (d_ff).

#include "core/model/ModelConfig.h"

#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

namespace core::nn {

/// w_2(act(w_1 x)), the seed's PositionWiseFeedForward.
class FeedForwardImpl : public torch::nn::Module {
public:
    FeedForwardImpl(int64_t dModel, int64_t dFf, Activation activation);
    torch::Tensor forward(const torch::Tensor& x); // (B, T, C) -> (B, T, C)

    torch::nn::Linear w_1{nullptr}, w_2{nullptr};

private:
    Activation activation_;
};
TORCH_MODULE(FeedForward);

} // namespace core::nn
