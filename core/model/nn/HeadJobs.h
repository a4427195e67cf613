#pragma once
// The heads of one attention block without autograd, each (sequence, head) pair one job.
// Shapes: B sequences, H heads, N = B·H jobs, Tq queries, Tk keys, hs head size, C = H·hs, rows = Tq or 1.

#include <torch/types.h>

#include <cstdint>

namespace core::nn {

/// Runs the jobs in one parallel region, each on one core: scale·QKᵀ + mask as one product, the softmax in
/// place in p, and the head's output written straight into its hs columns of x, the (B, rows, C) input of
/// the output projection (rows = 1: the last query's only). No transpose copy, no second (N, Tq, Tk)
/// buffer, no pass for the scale or the mask. q3 (N, Tq, hs); k3, v3 (N, Tk, hs); m additive (B|1, 1|Tq,
/// Tk) or undefined; p (N, Tq, Tk) contiguous; off: [H] flags of ablated heads (their output is zero, their
/// weights still computed) or null.
///
/// On the CPU in float32 the jobs call the BLAS on raw pointers (core::blas): for a decode step or a short
/// input a head's products are a few thousand multiply-adds, and LibTorch's indexing, out-variants and
/// softmax cost microseconds each around them. Returns false, having done nothing, where that path does
/// not apply (another device or type, a BLAS without sgemm_).
bool attendHeadsRaw(const torch::Tensor& q3, const torch::Tensor& k3, const torch::Tensor& v3,
                    const torch::Tensor& m, int64_t heads, double scale, const std::uint8_t* off,
                    torch::Tensor& p, torch::Tensor& x);

/// The same jobs through LibTorch's operators, for any device and type.
void attendHeadsTorch(const torch::Tensor& q3, const torch::Tensor& k3, const torch::Tensor& v3,
                      const torch::Tensor& m, int64_t heads, double scale, const std::uint8_t* off,
                      torch::Tensor& p, torch::Tensor& x);

} // namespace core::nn
