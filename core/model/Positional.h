#pragma once
// Positional-encoding tables and their rotation property, for the tests and the positional-encodings view.

#include <vector>

namespace core {

/// The sinusoidal table (maxLen × dModel, row-major): PE(pos, 2i) = sin(pos·ω_i), PE(pos, 2i+1) =
/// cos(pos·ω_i), ω_i = 10000^(−2i/dModel), the same function the seed's PositionalEncoding computes.
std::vector<float> sinusoidalPositions(int maxLen, int dModel);

} // namespace core
