#include "core/base/Blas.h"

#include <dlfcn.h>

namespace core::blas {

namespace {

using Sgemm = void (*)(const char*, const char*, const int*, const int*, const int*, const float*,
                       const float*, const int*, const float*, const int*, const float*, float*, const int*);
using Sgemv = void (*)(const char*, const int*, const int*, const float*, const float*, const int*,
                       const float*, const int*, const float*, float*, const int*);

struct Entries {
    Sgemm sgemm = nullptr;
    Sgemv sgemv = nullptr;
};

const Entries& entries() {
    static const Entries e = [] {
        Entries out;
        out.sgemm = reinterpret_cast<Sgemm>(dlsym(RTLD_DEFAULT, "sgemm_"));
        out.sgemv = reinterpret_cast<Sgemv>(dlsym(RTLD_DEFAULT, "sgemv_"));
        return out;
    }();
    return e;
}

} // namespace

bool available() {
    return entries().sgemm && entries().sgemv;
}

// Fortran is column-major: a row-major X with row stride ld is the column-major Xᵀ with the same stride, so
// row-major C = op(A)·op(B) is column-major Cᵀ = op(B)ᵀ·op(A)ᵀ with the operands swapped.
void gemm(bool transA, bool transB, int m, int n, int k, float alpha, const float* a, int lda, const float* b,
          int ldb, float beta, float* c, int ldc) {
    const char ta = transA ? 'T' : 'N', tb = transB ? 'T' : 'N';
    entries().sgemm(&tb, &ta, &n, &m, &k, &alpha, b, &ldb, a, &lda, &beta, c, &ldc);
}

// Row-major A (m × n) is column-major Aᵀ (n × m): A·x is Aᵀᵀ·x, so the transposition flips.
void gemv(bool transA, int m, int n, float alpha, const float* a, int lda, const float* x, float beta,
          float* y) {
    const char t = transA ? 'N' : 'T';
    const int one = 1;
    entries().sgemv(&t, &n, &m, &alpha, a, &lda, x, &one, &beta, y, &one);
}

} // namespace core::blas
