#include "core/analysis/Rollout.h"

#include "core/base/Errors.h"

#include <torch/torch.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>

// Shapes: L layers, H heads, Q queries, K keys, S source length, T target length, P a head's stored cells.

namespace core {

namespace {

// The heads' mean of every layer: (L, Q, K). A compact block's float16 cells are widened a layer at a time
// by LibTorch (vectorised), not a cell at a time through the table the views use.
torch::Tensor layerMeans(const AttentionBlock& b) {
    const auto L = b.layers, H = b.heads, Q = b.queries, K = b.keys;
    auto out = torch::zeros({L, Q, K}, torch::kFloat32); // (L, Q, K)
    if (!b.compact()) {
        auto all = torch::from_blob(const_cast<float*>(b.data.data()), {L, H, Q, K}, torch::kFloat32);
        return all.mean(1); // (L, Q, K)
    }
    const auto perHead = static_cast<int64_t>(b.rowOffset(0, 1, 0));
    for (int l = 0; l < L; ++l) {
        auto* half = const_cast<std::uint16_t*>(b.halfData() + b.rowOffset(l, 0, 0));
        const auto mean =
            torch::from_blob(half, {H, perHead}, torch::kHalf).to(torch::kFloat32).mean(0); // (P)
        if (!b.triangular) {
            out[l].copy_(mean.view({Q, K}));
            continue;
        }
        const float* src = mean.data_ptr<float>();
        float* dst = out[l].data_ptr<float>();
        for (int q = 0; q < Q; ++q)
            std::memcpy(dst + static_cast<std::size_t>(q) * static_cast<std::size_t>(K),
                        src + b.rowOffset(0, 0, q),
                        static_cast<std::size_t>(b.storedKeys(q)) * sizeof(float));
    }
    return out;
}

// Ā = A + I with rows renormalised: the residual connection as an edge to the token itself. (N, N)
torch::Tensor withResidual(const torch::Tensor& a) {
    const auto r = a + torch::eye(a.size(0), a.options()); // (N, N)
    return r / r.sum(-1, true);
}

// A·B for lower-triangular A and B (causal maps): block (i, j) of the product needs only A's row block i over
// columns j … i and B's rows j … i, so each block is one product over that band, about a third of the work
// of the full product at T = 1,024. Short sides take the full product.
torch::Tensor lowerProduct(const torch::Tensor& a, const torch::Tensor& b) {
    const auto n = a.size(0);
    constexpr int64_t kBlock = 128;
    if (n <= 2 * kBlock)
        return torch::mm(a, b); // (N, N)
    auto c = torch::zeros({n, n}, a.options());
    for (int64_t i0 = 0; i0 < n; i0 += kBlock) {
        const auto ni = std::min(kBlock, n - i0), iEnd = i0 + ni;
        for (int64_t j0 = 0; j0 <= i0; j0 += kBlock) {
            const auto nj = std::min(kBlock, n - j0);
            const auto band = iEnd - j0;
            c.narrow(0, i0, ni).narrow(1, j0, nj).copy_(
                torch::mm(a.narrow(0, i0, ni).narrow(1, j0, band), b.narrow(0, j0, band).narrow(1, j0, nj)));
        }
    }
    return c; // (N, N)
}

// Ā_{L−1} ⋯ Ā_0 of one self-attention kind. (N, N)
torch::Tensor selfRollout(const torch::Tensor& means, bool causal) {
    auto r = withResidual(means[0]);
    for (int64_t l = 1; l < means.size(0); ++l) {
        const auto a = withResidual(means[l]);
        r = causal ? lowerProduct(a, r) : torch::mm(a, r);
    }
    return r;
}

void checkKind(const AttentionSnapshot& snap, AttentionKind kind) {
    if (kind == AttentionKind::Pooling)
        throw InputError(
            "rollout composes a Transformer's layers: a classifier's pooling is one row of weights, "
            "already the whole story");
    if (!snap.has(kind))
        throw InputError(std::string("this run has no ") + toString(kind) + " attention to roll out");
    const bool encDec = snap.has(AttentionKind::Cross);
    if (encDec && (!snap.has(AttentionKind::Encoder) || !snap.has(AttentionKind::Decoder)))
        throw InputError(
            "rollout composes a Transformer's layers: this model's attention over its source is one "
            "map (a recurrent decoder's), already the whole story");
    for (const auto k : {AttentionKind::Encoder, AttentionKind::Decoder}) {
        const auto& b = snap.block(k);
        if (!b.empty() && b.queries != b.keys)
            throw InputError(std::string("the ") + toString(k) + " attention is not square (" +
                             std::to_string(b.queries) + " × " + std::to_string(b.keys) + ")");
    }
}

Matrix toMatrix(const torch::Tensor& t) {
    const auto c = t.to(torch::kFloat32).contiguous();
    Matrix m(static_cast<int>(c.size(0)), static_cast<int>(c.size(1)));
    std::memcpy(m.data.data(), c.data_ptr<float>(), m.data.size() * sizeof(float));
    return m;
}

std::vector<Matrix> layerMatrices(const torch::Tensor& means, bool residual) {
    std::vector<Matrix> out;
    for (int64_t l = 0; l < means.size(0); ++l)
        out.push_back(toMatrix(residual ? withResidual(means[l]) : means[l]));
    return out;
}

} // namespace

AttentionGraph attentionGraph(const AttentionSnapshot& snap, AttentionKind kind) {
    checkKind(snap, kind);
    torch::NoGradGuard noGrad;
    AttentionGraph g;
    const bool encDec = snap.has(AttentionKind::Cross);
    if (kind == AttentionKind::Encoder || encDec)
        g.encoder = layerMatrices(layerMeans(snap.encoder), true);
    if (kind != AttentionKind::Encoder)
        g.decoder = layerMatrices(layerMeans(snap.decoder), true);
    if (kind != AttentionKind::Encoder && encDec)
        g.cross = layerMatrices(layerMeans(snap.cross), false);
    return g;
}

Rollout attentionRollout(const AttentionSnapshot& snap, AttentionKind kind) {
    checkKind(snap, kind);
    torch::NoGradGuard noGrad;
    Rollout out;
    out.kind = kind;
    torch::Tensor result; // (queries, keys), rows summing to 1 before the final renormalisation
    const bool encDec = snap.has(AttentionKind::Cross);
    if (kind == AttentionKind::Encoder || !encDec) {
        result = selfRollout(layerMeans(snap.block(kind)), kind == AttentionKind::Decoder);
    } else {
        const auto enc = selfRollout(layerMeans(snap.encoder), false); // (S, S)
        const auto self = layerMeans(snap.decoder);                    // (L, T, T)
        const auto cross = layerMeans(snap.cross);                     // (L, T, S)
        const auto t = self.size(1);
        auto dtt = torch::eye(t, self.options());                  // (T, T)
        auto dts = torch::zeros({t, enc.size(0)}, self.options()); // (T, S)
        for (int64_t l = 0; l < self.size(0); ++l) {
            const auto a = withResidual(self[l]);
            dtt = lowerProduct(a, dtt);
            dts = torch::mm(a, dts); // (T, S)
            dtt = 0.5 * dtt;
            dts = 0.5 * dts + 0.5 * torch::mm(cross[l], enc); // (T, S)
        }
        result = kind == AttentionKind::Cross ? dts : dtt;
    }
    const auto share = result.sum(-1); // (rows)
    const auto shareC = share.contiguous();
    out.share.assign(shareC.data_ptr<float>(), shareC.data_ptr<float>() + shareC.numel());
    out.weights = toMatrix(result / share.clamp_min(std::numeric_limits<float>::min()).unsqueeze(1));
    return out;
}

} // namespace core
