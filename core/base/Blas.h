#pragma once
// Direct calls into the BLAS that LibTorch itself multiplies with, for loops where LibTorch's per-operation
// dispatch would cost more than the arithmetic (the attention of one head of a short input or a decode step:
// a few thousand multiply-adds behind microseconds of tensor bookkeeping).
//
// The functions are the BLAS's Fortran entry points (sgemm_, sgemv_), which every BLAS has, resolved in the
// running process: LibTorch loaded the library, so no link-time dependency is added and the same kernels
// (OpenBLAS's, with the OPENBLAS_CORETYPE the launcher chose) serve both.

namespace core::blas {

/// Whether the process's BLAS offers sgemm_ and sgemv_. Callers keep a path without it.
bool available();

/// Row-major C (m × n) = alpha · op(A) · op(B) + beta · C, op(X) being X or Xᵀ; lda, ldb, ldc are row
/// strides in floats. Only when available().
void gemm(bool transA, bool transB, int m, int n, int k, float alpha, const float* a, int lda, const float* b,
          int ldb, float beta, float* c, int ldc);

/// Row-major y = alpha · op(A) · x + beta · y for A (m × n) with row stride lda; x and y contiguous. Only
/// when available().
void gemv(bool transA, int m, int n, float alpha, const float* a, int lda, const float* x, float beta,
          float* y);

} // namespace core::blas
