#include "core/train/FlatAdam.h"

#include "core/base/Errors.h"

#include <torch/torch.h>

#include <cmath>

// Shapes: N the number of parameter values in the model.

namespace core {

FlatAdam::FlatAdam(std::vector<torch::Tensor> params, double beta1, double beta2, double eps)
    : tensors_(std::move(params)), beta1_(beta1), beta2_(beta2), eps_(eps) {
    torch::NoGradGuard noGrad;
    int64_t n = 0;
    for (const auto& p : tensors_)
        n += p.numel();
    params_ = torch::empty({n}, torch::kFloat32); // (N,)
    grads_ = torch::zeros({n}, torch::kFloat32);  // (N,)
    expAvg_ = torch::zeros({n}, torch::kFloat32);
    expAvgSq_ = torch::zeros({n}, torch::kFloat32);
    int64_t offset = 0;
    for (auto& p : tensors_) {
        const auto count = p.numel();
        auto slice = params_.narrow(0, offset, count).view(p.sizes());
        slice.copy_(p);
        // set_data keeps the parameter object (the module still holds it) but moves its storage.
        p.set_data(slice);
        slices_.push_back(grads_.narrow(0, offset, count).view(p.sizes()));
        p.mutable_grad() = slices_.back();
        offset += count;
    }
}

void FlatAdam::gatherGrads() {
    for (std::size_t i = 0; i < tensors_.size(); ++i) {
        auto& g = tensors_[i].mutable_grad();
        if (g.defined() && g.data_ptr() == slices_[i].data_ptr())
            continue;
        torch::NoGradGuard noGrad;
        if (g.defined())
            slices_[i].copy_(g);
        else
            slices_[i].zero_();
        g = slices_[i];
    }
}

void FlatAdam::zeroGrad() {
    gatherGrads();
    grads_.zero_();
}

double FlatAdam::clipGradNorm(double maxNorm) {
    torch::NoGradGuard noGrad;
    gatherGrads();
    const double norm = grads_.norm().item<double>();
    // torch.nn.utils.clip_grad_norm_'s coefficient: max_norm / (norm + 1e-6), never above 1.
    const double coef = maxNorm / (norm + 1e-6);
    if (coef < 1.0)
        grads_.mul_(coef);
    return norm;
}

void FlatAdam::step(double lr) {
    torch::NoGradGuard noGrad;
    gatherGrads();
    steps_ += 1;
    const double bias1 = 1.0 - std::pow(beta1_, static_cast<double>(steps_));
    const double bias2 = 1.0 - std::pow(beta2_, static_cast<double>(steps_));
    expAvg_.mul_(beta1_).add_(grads_, 1.0 - beta1_);                     // (N,)
    expAvgSq_.mul_(beta2_).addcmul_(grads_, grads_, 1.0 - beta2_);       // (N,)
    const auto denom = (expAvgSq_.sqrt() / std::sqrt(bias2)).add_(eps_); // (N,)
    params_.addcdiv_(expAvg_, denom, -lr / bias1);                       // (N,)
    // The parameters are views of params_ with counters of their own (set_data keeps the parameter's), so
    // this write does not move them; products through packed weights (PackedLinear) read the counters to
    // know that a weight changed.
    for (auto& p : tensors_)
        p.unsafeGetTensorImpl()->bump_version();
}

void FlatAdam::restore(const std::vector<float>& first, const std::vector<float>& second, int64_t steps,
                       const std::string& source) {
    const auto n = static_cast<std::size_t>(params_.numel());
    if (first.size() != n || second.size() != n)
        throw FormatError(source + ": the optimizer state holds " + std::to_string(first.size()) + " and " +
                          std::to_string(second.size()) + " values; this model has " + std::to_string(n) +
                          " parameters");
    if (steps < 0)
        throw FormatError(source + ": negative optimizer step count");
    std::copy(first.begin(), first.end(), expAvg_.data_ptr<float>());
    std::copy(second.begin(), second.end(), expAvgSq_.data_ptr<float>());
    steps_ = steps;
}

} // namespace core
