#pragma once
// Shapes: B batch, T time, C channels, V vocabulary.

#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

namespace core::nn {

/// The seed's Generator: log_softmax(proj(x)). Tied: proj is the target embedding table, without a bias.
class GeneratorImpl : public torch::nn::Module {
public:
    /// bias: an untied proj adds one (a tied one never does).
    GeneratorImpl(int64_t dModel, int64_t vocab, torch::Tensor tiedWeight, bool bias = true);
    torch::Tensor logits(const torch::Tensor& x);  // (B, T, C) -> (B, T, V)
    torch::Tensor forward(const torch::Tensor& x); // (B, T, C) -> (B, T, V) log-probabilities

    torch::nn::Linear proj{nullptr};

private:
    torch::Tensor tied_; // (V, C)
};
TORCH_MODULE(Generator);

} // namespace core::nn
