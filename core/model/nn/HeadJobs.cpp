#include "core/model/nn/HeadJobs.h"

#include "core/base/Blas.h"

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>

// Shapes: B sequences, H heads, N = B·H jobs, Tq queries, Tk keys, hs head size, C = H·hs.

namespace core::nn {

namespace {

// Below this many multiply-adds in all heads together (a decode step over a short input: 4 heads × 64 keys
// × 64 × 2) the heads run on the calling thread: waking the other threads costs more than they would save.
constexpr int64_t kSerialHeadsBelow = int64_t(1) << 17;
// Rows of at most this many probabilities in all take the plain softmax below (a decode step's row);
// more go to LibTorch's vectorised kernel: at 64 × 64 the plain exp made a T = 64 analysis 16% slower.
constexpr int64_t kOwnSoftmaxUpTo = 512;

// Softmax of each row in place, as LibTorch's kernel computes it: exp(x − max), times 1 / sum.
void softmaxRows(float* p, int64_t rows, int64_t n) {
    for (int64_t r = 0; r < rows; ++r) {
        float* row = p + r * n;
        const float top = *std::max_element(row, row + n);
        float sum = 0.0f;
        for (int64_t j = 0; j < n; ++j) {
            row[j] = std::exp(row[j] - top);
            sum += row[j];
        }
        const float inv = 1.0f / sum;
        for (int64_t j = 0; j < n; ++j)
            row[j] *= inv;
    }
}

// A (N, n, hs) float tensor as its first element and row strides, the last dimension contiguous.
struct Rows {
    torch::Tensor keep; // owns the memory when a copy had to be made
    const float* at = nullptr;
    int64_t perItem = 0, perRow = 0;
};

Rows rowsOf(const torch::Tensor& t) {
    Rows r;
    r.keep = t.stride(2) == 1 ? t : t.contiguous();
    r.at = r.keep.data_ptr<float>();
    r.perItem = r.keep.stride(0);
    r.perRow = r.keep.stride(1);
    return r;
}

} // namespace

bool attendHeadsRaw(const torch::Tensor& q3, const torch::Tensor& k3, const torch::Tensor& v3,
                    const torch::Tensor& m, int64_t heads, double scale, const std::uint8_t* off,
                    torch::Tensor& p, torch::Tensor& x) {
    const bool usable = blas::available() && q3.is_cpu() && q3.scalar_type() == torch::kFloat32 &&
                        k3.scalar_type() == torch::kFloat32 && v3.scalar_type() == torch::kFloat32 &&
                        (!m.defined() || m.scalar_type() == torch::kFloat32) && p.is_contiguous() &&
                        x.is_contiguous();
    if (!usable)
        return false;
    const auto bh = q3.size(0), tq = q3.size(1), tk = k3.size(1), hs = q3.size(2), rows = x.size(1);
    const auto qr = rowsOf(q3), kr = rowsOf(k3), vr = rowsOf(v3);
    const auto mc = m.defined() ? m.contiguous() : torch::Tensor(); // (B|1, 1|Tq, Tk)
    const float* mAt = mc.defined() ? mc.data_ptr<float>() : nullptr;
    const int64_t mRows = mc.defined() ? mc.size(1) : 0,
                  mPerSeq = mc.defined() && mc.size(0) > 1 ? mRows * tk : 0;
    float* pAt = p.data_ptr<float>();
    float* xAt = x.data_ptr<float>();
    const int64_t c = heads * hs;
    // The BLAS takes ints; every size here is far below 2^31 (T ≤ max_len, C and hs small).
    const int nq = static_cast<int>(tq), nk = static_cast<int>(tk), nh = static_cast<int>(hs),
              nr = static_cast<int>(rows), ldq = static_cast<int>(qr.perRow),
              ldk = static_cast<int>(kr.perRow), ldv = static_cast<int>(vr.perRow), ldx = static_cast<int>(c);
    const auto alpha = static_cast<float>(scale);
    const auto work = bh * tq * tk * hs * 2;
    at::parallel_for(0, bh, work < kSerialHeadsBelow ? bh : 1, [&](int64_t begin, int64_t end) {
        torch::NoGradGuard noGrad; // the long rows' softmax is a LibTorch op
        for (int64_t i = begin; i < end; ++i) {
            const auto seq = i / heads, head = i % heads;
            float* pi = pAt + i * tq * tk; // (Tq, Tk)
            const float* qi = qr.at + i * qr.perItem;
            const float* ki = kr.at + i * kr.perItem;
            const float* vi = vr.at + i * vr.perItem;
            float beta = 0.0f;
            if (mAt) { // the product adds itself to the mask: scale·QKᵀ + mask in one pass
                for (int64_t r = 0; r < tq; ++r) {
                    const float* mr = mAt + seq * mPerSeq + (mRows == 1 ? 0 : r * tk);
                    std::copy(mr, mr + tk, pi + r * tk);
                }
                beta = 1.0f;
            }
            if (tq == 1)
                blas::gemv(false, nk, nh, alpha, ki, ldk, qi, beta, pi); // (Tk) = K q
            else
                blas::gemm(false, true, nq, nk, nh, alpha, qi, ldq, ki, ldk, beta, pi, nk); // (Tq, Tk) = Q Kᵀ
            if (tq * tk <= kOwnSoftmaxUpTo) {
                softmaxRows(pi, tq, tk);
            } else {
                auto pt = p[i]; // (Tq, Tk)
                at::_softmax_out(pt, pt, -1, false);
            }
            float* xi = xAt + seq * rows * c + head * hs; // (rows, hs), row stride C
            const float* pr = rows < tq ? pi + (tq - 1) * tk : pi;
            if (off && off[head])
                for (int64_t r = 0; r < rows; ++r)
                    std::fill(xi + r * c, xi + r * c + hs, 0.0f);
            else if (rows == 1)
                blas::gemv(true, nk, nh, 1.0f, vi, ldv, pr, 0.0f, xi); // (hs) = Vᵀ p
            else
                blas::gemm(false, false, nr, nh, nk, 1.0f, pr, nk, vi, ldv, 0.0f, xi,
                           ldx); // (rows, hs) = P V
        }
    });
    return true;
}

void attendHeadsTorch(const torch::Tensor& q3, const torch::Tensor& k3, const torch::Tensor& v3,
                      const torch::Tensor& m, int64_t heads, double scale, const std::uint8_t* off,
                      torch::Tensor& p, torch::Tensor& x) {
    const auto bh = q3.size(0), tq = q3.size(1), hs = q3.size(2), rows = x.size(1);
    const auto q = m.defined() ? q3 : q3 * scale; // (N, Tq, hs); with a mask, the product applies the scale
    const auto kt = k3.transpose(1, 2);           // (N, hs, Tk)
    at::parallel_for(0, bh, q3.is_cpu() ? 1 : bh, [&](int64_t begin, int64_t end) {
        torch::NoGradGuard noGrad; // worker threads do not inherit the caller's autograd mode
        for (int64_t i = begin; i < end; ++i) {
            const auto seq = i / heads, head = i % heads;
            auto pi = p[i]; // (Tq, Tk)
            if (m.defined())
                at::addmm_out(pi, m[m.size(0) == 1 ? 0 : seq], q[i], kt[i], 1.0, scale); // (Tq, Tk)
            else
                at::mm_out(pi, q[i], kt[i]); // (Tq, Tk)
            at::_softmax_out(pi, pi, -1, false);
            auto xi = x[seq].narrow(1, head * hs, hs); // (rows, hs), row stride C
            if (off && off[head])
                xi.zero_();
            else
                at::mm_out(xi, rows < tq ? pi.narrow(0, tq - 1, 1) : pi, v3[i]);
        }
    });
}

} // namespace core::nn
