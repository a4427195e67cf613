#include "core/model/nn/PositionalTable.h"

#include <torch/torch.h>

#include <cmath>

namespace core::nn {

torch::Tensor sinusoidalTable(int64_t maxLen, int64_t dModel, bool halves) {
    const auto f64 = torch::TensorOptions().dtype(torch::kFloat64);
    const auto position = torch::arange(0, maxLen, f64).unsqueeze(1); // (P, 1)
    const auto divTerm =
        torch::exp(torch::arange(0, dModel, 2, f64) * -(std::log(10000.0) / dModel)); // (C/2)
    auto pe = torch::zeros({maxLen, dModel}, f64);                                    // (P, C)
    const auto half = (dModel + 1) / 2; // the sines' columns (transformers' sentinel for an odd C)
    // (P, C/2) each
    pe.slice(1, 0, halves ? half : dModel, halves ? 1 : 2).copy_(torch::sin(position * divTerm));
    pe.slice(1, halves ? half : 1, dModel, halves ? 1 : 2)
        .copy_(torch::cos(position * divTerm).narrow(1, 0, dModel / 2));
    return pe.to(torch::kFloat32);
}

PositionalTableImpl::PositionalTableImpl(PositionalEncoding kind, int64_t maxLen, int64_t dModel, bool halves)
    : kind_(kind), halves_(halves) {
    // A registered buffer, so that moving the model (to a device or a dtype) moves the table with it.
    if (kind == PositionalEncoding::Sinusoidal)
        pe = register_buffer("pe", sinusoidalTable(maxLen, dModel, halves).unsqueeze(0));
    else if (kind == PositionalEncoding::Learned)
        weight = register_parameter("weight", torch::randn({maxLen, dModel}) * 0.02);
}

void PositionalTableImpl::setSinusoidal(torch::Tensor table) {
    // In place: the registered buffer and `pe` are one tensor, and must stay one (a file's table may be
    // longer than max_len, so this is not a copy_).
    torch::NoGradGuard noGrad;
    pe.set_(table.to(pe.device(), pe.scalar_type()).contiguous());
}

torch::Tensor PositionalTableImpl::table() const {
    if (kind_ == PositionalEncoding::Sinusoidal)
        return pe[0];
    if (kind_ == PositionalEncoding::Learned)
        return weight;
    return {};
}

torch::Tensor PositionalTableImpl::forward(const torch::Tensor& x, int64_t pos0) {
    const auto t = x.size(1);
    if (kind_ == PositionalEncoding::Sinusoidal) {
        if (pos0 + t <= pe.size(1))
            return x + pe.narrow(1, pos0, t); // (B, T, C) + (1, T, C)
        // Past the table (a run asked to go past max_len): the same formula, computed for these rows.
        const auto rows = sinusoidalTable(pos0 + t, pe.size(2), halves_).narrow(0, pos0, t); // (T, C)
        return x + rows.to(pe.device(), pe.scalar_type()); // (B, T, C) + (T, C)
    }
    if (kind_ == PositionalEncoding::Learned)
        return x + weight.narrow(0, pos0, t); // (B, T, C) + (T, C)
    return x;
}

} // namespace core::nn
