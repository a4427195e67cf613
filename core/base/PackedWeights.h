#pragma once
// Shapes: M rows of input, K input features, N output features.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace core {

/// A weight matrix W (N, K), row-major float32, copied once into the blocked layout oneDNN's inner-product
/// kernels read, with its bias.
///
/// A BLAS GEMM packs both operands on every call. At the sizes a keystroke or a decode step multiplies (64
/// rows or one against a 512 × 2048 weight) that packing re-reads the whole weight for little arithmetic:
/// OpenBLAS spent a third of its time in it. Packed once, the same products ran at 330–370 GFLOP/s where
/// OpenBLAS reached 160–230, and one row (a decode step) 4.6 times as fast.
///
/// oneDNN is the library Debian's LibTorch already loads; without it (supported() false) callers keep their
/// own path. apply() is safe to call from several threads at once.
class PackedWeights {
public:
    /// Whether this build can pack (it found oneDNN).
    static bool supported();
    /// Whether products are to go through packed weights: supported() and not switched off, by
    /// ATTNSCOPE_PACKED_WEIGHTS=0 in the environment or setEnabled(false) (to measure both paths in one
    /// process).
    static bool enabled();
    static void setEnabled(bool on);
    /// For a benchmark's header: "oneDNN 2.6.3", "off (ATTNSCOPE_PACKED_WEIGHTS=0)", "off", or "not built".
    static std::string describe();

    /// Copies w (N × K, row stride K) and bias (N floats, or null for none). Throws std::runtime_error
    /// naming the shape when oneDNN refuses it.
    PackedWeights(const float* w, int64_t n, int64_t k, const float* bias);
    ~PackedWeights();
    PackedWeights(const PackedWeights&) = delete;
    PackedWeights& operator=(const PackedWeights&) = delete;

    /// y (M × N) = x (M × K) · Wᵀ + bias; x and y dense and row-major, not overlapping.
    void apply(const float* x, int64_t m, float* y) const;

    int64_t rows() const { return n_; }
    int64_t cols() const { return k_; }
    /// Memory the packed copy holds.
    std::size_t bytes() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
    int64_t n_ = 0, k_ = 0;
};

} // namespace core
