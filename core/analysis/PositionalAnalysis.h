#pragma once
// Measurements on a positional table (positions × dims, row-major, as Model::positionalTable returns it):
// how positions resemble each other, and how well moving by k positions is a fixed rotation of each
// (2i, 2i+1) pair. Plain C++ so the view and the tests share one implementation.
//
// Convention (the seed's): PE(pos, 2i) = sin(pos·θ_i), PE(pos, 2i+1) = cos(pos·θ_i). With the sine first,
// sin(a+t) = sin a·cos t + cos a·sin t and cos(a+t) = cos a·cos t − sin a·sin t give
//     [PE(pos+k, 2i)  ]   [ cos kθ_i   sin kθ_i ] [PE(pos, 2i)  ]
//     [PE(pos+k, 2i+1)] = [−sin kθ_i   cos kθ_i ] [PE(pos, 2i+1)]
// which is the transpose of the textbook counter-clockwise matrix: plotted as (x, y) = (sin, cos) the
// points turn clockwise as the position grows.

#include <vector>

namespace core {

enum class SimilarityKind {
    Dot,   ///< PE(a)·PE(b)
    Cosine ///< PE(a)·PE(b) / (|PE(a)|·|PE(b)|); 0 where either row is all zeros
};

/// θ_i = 10000^(−2i/dModel): the angle pair (2i, 2i+1) of a sinusoidal table turns per position.
double sinusoidalFrequency(int pair, int dModel);

/// Positions per period of a sinusoidal pair: 2π / θ_i.
double sinusoidalPeriod(int pair, int dModel);

/// Sampled at whole positions, a curve with fewer than this many positions per period reads as a zig-zag.
inline constexpr double kSmoothSamplesPerPeriod = 8.0;

/// Four dimensions of a sinusoidal table whose curves read as smooth waves over `positions`: the sin and
/// cos of the fastest pair with at least twice kSmoothSamplesPerPeriod positions per period (waves one can
/// count), and of the first pair whose period reaches half the positions shown (a slow wave beside it).
std::vector<int> smoothSinusoidalDims(int dModel, int positions);

/// The seed's R(angle) applied to (first, second) = (PE(·, 2i), PE(·, 2i+1)); see the header comment.
void rotatePair(double angle, double& first, double& second);

/// The largest |value| in the first `positions` rows (0 for an empty table): a symmetric colour range.
double maxAbs(const std::vector<float>& table, int dims, int positions);

/// sqrt(mean over the first `positions` rows of PE(pos,2i)² + PE(pos,2i+1)²): the scale a rotation error of
/// pair i is judged against (1 for a sinusoidal table, whose points lie on the unit circle).
double pairRmsRadius(const std::vector<float>& table, int dims, int positions, int pair);

/// The positions × positions similarity of the first `positions` rows, row-major. `positions` is
/// clamped to the rows the table has.
std::vector<double> positionSimilarity(const std::vector<float>& table, int dims, int positions,
                                       SimilarityKind kind);

/// How far a table is from rotating pair `pair` by `angle` when the position moves by `offset`.
struct RotationCheck {
    double maxError = 0.0;  ///< max over pos of |PE(pos+k) − R(angle)·PE(pos)| on the two dims
    int worstPosition = -1; ///< the pos where that maximum occurs; −1 when nothing was compared
    int comparisons = 0;    ///< positions compared: pos = 0 … positions − offset − 1
};

/// Measures the rotation property over the first `positions` rows of any table (sinusoidal or learned).
/// A sinusoidal table checked with angle = offset·sinusoidalFrequency(pair, dims) gives float round-off.
RotationCheck rotationError(const std::vector<float>& table, int dims, int positions, int pair, int offset,
                            double angle);

/// The single angle whose rotation best maps PE(pos) to PE(pos+offset) on pair `pair` in the least-squares
/// sense (atan2 of the summed cross and dot products). For a learned table this is the fairest angle to
/// measure against; for a sinusoidal one it recovers offset·θ_i (mod 2π).
double bestRotationAngle(const std::vector<float>& table, int dims, int positions, int pair, int offset);

} // namespace core
