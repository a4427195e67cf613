#pragma once
// Shapes: B batch, H heads, S source length, T target length (or new tokens of a step).

#include <torch/types.h>

#include <vector>

namespace core::nn {

/// Where the attention blocks leave their probabilities when capture is on: one (B, H, q, k) tensor per
/// layer.
struct Capture {
    std::vector<torch::Tensor> encoderSelf; // (B, H, S, S) per encoder layer
    std::vector<torch::Tensor> decoderSelf; // (B, H, T, Tk) per decoder layer
    std::vector<torch::Tensor> cross;       // (B, H, T, S) per decoder layer
};

} // namespace core::nn
