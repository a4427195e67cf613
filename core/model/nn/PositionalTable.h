#pragma once
// Shapes: B batch, T time, C channels, P positions (max_len).

#include "core/model/ModelConfig.h"

#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

namespace core::nn {

/// Adds positions to token embeddings. Sinusoidal: a fixed table `pe` (1, P, C), a buffer rather than a
/// parameter, as in the seed, so a file may carry it or leave it out. Learned: a parameter `weight` (P, C).
/// Rotary and none add nothing here (rotary acts inside attention).
class PositionalTableImpl : public torch::nn::Module {
public:
    /// halves: the sinusoid's sines in the first C/2 columns and cosines in the rest (Marian's layout).
    PositionalTableImpl(PositionalEncoding kind, int64_t maxLen, int64_t dModel, bool halves = false);
    torch::Tensor forward(const torch::Tensor& x, int64_t pos0); // (B, T, C) -> (B, T, C)
    /// The (P, C) table that is added, or an undefined tensor when nothing is.
    torch::Tensor table() const;
    /// Replaces the sinusoidal table with one read from a file, shape (1, P', C).
    void setSinusoidal(torch::Tensor pe);

    torch::Tensor pe;     // (1, P, C), sinusoidal only
    torch::Tensor weight; // (P, C), learned only

private:
    PositionalEncoding kind_;
    bool halves_;
};
TORCH_MODULE(PositionalTable);

/// PE(pos, 2i) = sin(pos / 10000^(2i/C)), PE(pos, 2i+1) = cos(…), computed in double and rounded once,
/// so it stays within float precision of the formula even at pos 5000 (a float32 angle would not).
/// halves: the same values with the sines in columns [0, C/2) and the cosines in [C/2, C), as Marian
/// (transformers' MarianSinusoidalPositionalEmbedding) lays them out: column i and C/2 + i share a frequency.
torch::Tensor sinusoidalTable(int64_t maxLen, int64_t dModel, bool halves = false); // (P, C) float32

} // namespace core::nn
