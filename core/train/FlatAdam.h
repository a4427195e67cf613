#pragma once
// Adam over one contiguous buffer (internal to core: it takes torch tensors). The parameters are rebased onto
// slices of a single flat tensor and their gradients onto slices of another, so zeroing, clipping and each
// Adam update are one op on the whole model instead of one op per parameter tensor (about 90 tensors × 10 ops
// a step for a small model, each costing more to dispatch than its arithmetic). Same update as
// torch.optim.Adam (no weight decay, no amsgrad).

#include <torch/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace core {

class FlatAdam {
public:
    /// Takes over `params` (float32, all on the CPU): their values are copied into the flat buffer and each
    /// parameter becomes a view of its slice.
    FlatAdam(std::vector<torch::Tensor> params, double beta1, double beta2, double eps);

    void zeroGrad();
    /// Scales the gradients so their joint L2 norm is at most maxNorm; returns the norm before scaling.
    double clipGradNorm(double maxNorm);
    /// One Adam update with learning rate lr.
    void step(double lr);

    int64_t steps() const { return steps_; }
    int64_t numel() const { return params_.numel(); }
    /// The first and second moment buffers, flat in parameter order (for checkpoints).
    const torch::Tensor& firstMoment() const { return expAvg_; }
    const torch::Tensor& secondMoment() const { return expAvgSq_; }
    /// Restores a checkpoint's moments and step count. Throws FormatError when the sizes don't match.
    void restore(const std::vector<float>& first, const std::vector<float>& second, int64_t steps,
                 const std::string& source);

private:
    /// Autograd accumulates into an existing gradient in place, so the slices normally stay put; if a
    /// gradient was replaced by a fresh tensor, its values are moved back into the flat buffer.
    void gatherGrads();

    std::vector<torch::Tensor> tensors_;               // the parameters, views of params_
    std::vector<torch::Tensor> slices_;                // their gradients' slices of grads_
    torch::Tensor params_, grads_, expAvg_, expAvgSq_; // (N,)
    double beta1_, beta2_, eps_;
    int64_t steps_ = 0;
};

} // namespace core
