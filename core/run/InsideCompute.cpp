#include "core/run/InsideCompute.h"

#include "core/model/nn/HostData.h"
#include "core/model/nn/Linear.h"

#include <torch/torch.h>

#include <cmath>

// Shapes: Tq queries, Tk keys, C channels, H heads, hs head size.

namespace core {

using nn::hostFloats;
using nn::hostMatrix;

InsideRow computeInside(const InsideInputs& in, int head, int row) {
    torch::NoGradGuard noGrad;
    auto& att = *in.attention;
    const auto H = att.heads(), hs = att.headSize();
    const auto h = static_cast<int64_t>(head), i = static_cast<int64_t>(row);
    InsideRow out;
    out.heads = static_cast<int>(H);
    out.kvHeads = static_cast<int>(att.keyValueHeads());
    out.qkvBias = att.linears[0]->as<torch::nn::Linear>()->bias.defined();
    out.outBias = att.linears[3]->as<torch::nn::Linear>()->bias.defined();
    out.headSize = static_cast<int>(hs);
    out.dModel = static_cast<int>(H * hs);
    out.rotary = att.rotary();

    out.postNorm = in.postNorm;
    const auto rows = in.residual.unsqueeze(0);                 // (1, Tq, C)
    const auto x = in.postNorm ? rows : in.norm->forward(rows); // (1, Tq, C)
    const bool cross = in.memory.defined();
    // Keys and values of every head: the cached ones, or projected as the forward pass does (from the
    // normed rows themselves for self-attention, from the encoder's output for cross-attention).
    auto keys = in.keys, values = in.values; // (H, Tk, hs)
    if (!keys.defined()) {
        const auto from = cross ? in.memory.unsqueeze(0) : x;                            // (1, Tk, C)
        keys = cross ? att.project(1, from)[0] : att.rotate(att.project(1, from), 0)[0]; // (H, Tk, hs)
        values = att.project(2, from)[0];                                                // (H, Tk, hs)
    }
    const auto tk = keys.size(1);

    // This head's queries for every row, and every head's query for row i (the input of W_O needs them all).
    const auto qHead = att.rotate(att.projectHeads(0, x, h, 1), 0)[0][0];             // (Tq, hs)
    const auto qRow = att.rotate(att.project(0, x.narrow(1, i, 1)), i)[0].squeeze(1); // (H, hs)

    // The mask as an additive row: 0 where key j is visible to query i, kBlocked where it is not.
    std::vector<bool> visible(static_cast<std::size_t>(tk), true);
    for (int64_t j = 0; j < tk; ++j)
        visible[static_cast<std::size_t>(j)] =
            !(in.causal && j > i) && (in.visible.empty() || in.visible[static_cast<std::size_t>(j)]);
    std::vector<float> additive(static_cast<std::size_t>(tk), 0.0f);
    for (std::size_t j = 0; j < additive.size(); ++j)
        if (!visible[j])
            additive[j] =
                static_cast<float>(nn::kBlockedScore); // as the forward pass adds (nn::additiveMask)
    const auto maskRow = torch::tensor(additive, qRow.options()); // (Tk)

    const double scale = 1.0 / std::sqrt(static_cast<double>(hs));
    const auto scoresAll = torch::matmul(keys, qRow.unsqueeze(-1)).squeeze(-1);  // (H, Tk)
    const auto weightsAll = (scoresAll * scale + maskRow).softmax(-1);           // (H, Tk)
    const auto zAll = torch::matmul(weightsAll.unsqueeze(1), values).squeeze(1); // (H, hs)
    // A head switched off still attends (its stages are shown as computed) but hands W_O zeros.
    auto zIn = zAll;
    if (!in.off.empty()) {
        std::vector<float> keep(in.off.size());
        for (std::size_t k = 0; k < keep.size(); ++k)
            keep[k] = in.off[k] ? 0.0f : 1.0f;
        zIn = zAll * torch::tensor(keep, zAll.options()).unsqueeze(1); // (H, hs)
    }
    const auto concat = zIn.reshape({H * hs}); // (C)
    const auto& wo = *att.linears[3]->as<torch::nn::Linear>();
    const auto attnOut = nn::linear(concat.unsqueeze(0), wo.weight, wo.bias).squeeze(0); // (C)
    const auto residual = in.residual[i];                                                // (C)

    // The displayed head, stage by stage.
    const auto kh = keys[h], vh = values[h];         // (Tk, hs)
    const auto products = qRow[h].unsqueeze(0) * kh; // (Tk, hs)
    const auto scores = products.sum(-1);            // (Tk)
    const auto weights = weightsAll[h];              // (Tk)

    out.x = hostMatrix(x[0]);
    if (cross)
        out.memory = hostMatrix(in.memory);
    out.q = hostMatrix(qHead);
    out.k = hostMatrix(kh);
    out.v = hostMatrix(vh);
    out.products = hostMatrix(products);
    out.scores = hostFloats(scores);
    out.scale = static_cast<float>(scale);
    out.scaled = hostFloats(scores * scale);
    out.visible = std::move(visible);
    out.weights = hostFloats(weights);
    out.weighted = hostMatrix(weights.unsqueeze(1) * vh); // (Tk, hs)
    out.z = hostFloats(zAll[h]);
    out.concat = hostFloats(concat);
    out.headsOff.assign(static_cast<std::size_t>(H), false);
    for (std::size_t k = 0; k < in.off.size() && k < out.headsOff.size(); ++k)
        out.headsOff[k] = in.off[k] != 0;
    out.attnOut = hostFloats(attnOut);
    out.residual = hostFloats(residual);
    const auto sum = residual + attnOut; // (C)
    out.output = hostFloats(in.postNorm ? in.norm->forward(sum.view({1, 1, -1})).view({-1}) : sum);
    return out;
}

} // namespace core
