#pragma once
// Shapes: B batch, T time, C in features, F out features.

#include <torch/types.h>

#include <cstdint>

namespace core::nn {

/// x Wᵀ + b through a copy of W packed once for oneDNN (core/base/PackedWeights.h), kept until W's storage
/// is freed or written, while the copies fit in a budget (setPackingBudget). Only for inference on the CPU in
/// float32 with W's rows dense; returns an undefined tensor when the product is not one it takes, and the
/// caller multiplies as before.
///
/// `version` tells whether the weights were written since they were packed: the sum of the version
/// counters of every tensor W and b are made of (a fused view does not see its parts' counters).
torch::Tensor packedLinear(const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b,
                           int64_t version);

/// The version counter of t (0 for an inference tensor, which has none and cannot be written outside
/// inference mode), and of nothing (an undefined tensor) 0.
int64_t versionOf(const torch::Tensor& t);

/// The packed copies held now, their bytes, and how many bytes of copies may be held (512 MiB unless set).
struct PackedStats {
    int64_t weights = 0;
    int64_t bytes = 0;
    int64_t budget = 0;
};
PackedStats packedStats();

/// Sets the budget; a negative value restores the default. Copies held already stay.
void setPackingBudget(int64_t bytes);

} // namespace core::nn
