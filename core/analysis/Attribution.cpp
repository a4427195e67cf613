#include "core/analysis/Attribution.h"

#include "core/analysis/StreamPass.h"
#include "core/base/Errors.h"
#include "core/model/ModelParts.h"
#include "core/model/nn/DecoderLayer.h"
#include "core/model/nn/EncoderLayer.h"
#include "core/model/nn/FeedForward.h"
#include "core/model/nn/Linear.h"
#include "core/model/nn/Sublayer.h"
#include "core/run/InsideCompute.h"

#include <torch/torch.h>

#include <chrono>

// Shapes: T positions, C channels, H heads, hs head size, N components, V the output vocabulary.

namespace core {

namespace {

AttributionComponent meta(std::string name, std::string kind, int layer, int head, std::string sublayer) {
    AttributionComponent c;
    c.name = std::move(name);
    c.kind = std::move(kind);
    c.layer = layer;
    c.head = head;
    c.sublayer = std::move(sublayer);
    return c;
}

struct Parts {
    std::vector<AttributionComponent> info;
    std::vector<torch::Tensor> rows; // [N] (C), float32, summing to the stream at the position

    void add(AttributionComponent m, torch::Tensor v) {
        info.push_back(std::move(m));
        rows.push_back(v.to(torch::kFloat32).reshape({-1}));
    }
    torch::Tensor stacked() const { return torch::stack(rows); } // (N, C)
    void replace(const torch::Tensor& all) {                     // (N, C)
        for (std::size_t i = 0; i < rows.size(); ++i)
            rows[i] = all[static_cast<int64_t>(i)];
    }
    /// Every part through a norm frozen at the parts' total (which is the stream the norm read), and the
    /// norm's bias as a part of its own.
    void throughNorm(nn::LayerNormImpl& norm, const std::string& name, int layer,
                     const std::string& sublayer) {
        const auto all = stacked();
        replace(norm.frozenLinear(all, all.sum(0)));
        if (norm.b_2.defined())
            add(meta(name, "norm", layer, -1, sublayer), norm.b_2);
    }
};

} // namespace

Attribution directLogitAttribution(const Model& model, const AttentionSnapshot& snap, int position,
                                   int64_t token, int64_t versus, const HeadAblation& ablation,
                                   int extremes) {
    const auto& m = parts(model);
    const auto& c = m.config;
    const auto t0 = std::chrono::steady_clock::now();
    const auto pass = recordStream(model, snap, ablation, "no attribution");
    const auto T = static_cast<int>(pass.tokens.size());
    if (position < 0 || position >= T)
        throw InputError("no attribution: position " + std::to_string(position) + " is outside the run's " +
                         std::to_string(T) + " positions (0 to " + std::to_string(T - 1) + ")");
    torch::NoGradGuard noGrad;
    auto& net = *m.net.ptr();
    auto& generator = *net.generator;
    const bool enc = pass.encoderSide;
    const auto i = static_cast<int64_t>(position);
    Attribution out;
    out.position = position;
    out.postNorm = c.postNorm;
    out.encoderSide = enc;

    // The model's own logits at the position: the token asked about, or its most likely one.
    const auto own = m.logits(m.finalNorm(pass.stream.back(), enc))[0][i].to(torch::kFloat32); // (V)
    const auto V = own.size(0);
    for (const auto id : {token, versus})
        if (id >= V)
            throw InputError("no attribution: token " + std::to_string(id) +
                             " is outside the vocabulary of " + std::to_string(V) + " tokens");
    out.token = token >= 0 ? token : own.argmax().item<int64_t>();
    out.versus = versus;
    out.logit = own[out.token].item<double>() - (versus >= 0 ? own[versus].item<double>() : 0.0);

    Parts parts;
    parts.add(meta("embed", "embed", -1, -1, ""), pass.stream.front()[0][i]);
    auto layers = enc ? net.encoder->layers : net.decoder->layers; // a holder: a shared pointer
    std::size_t point = 1;
    for (std::size_t l = 0; l < layers->size(); ++l) {
        const int layer = static_cast<int>(l);
        nn::MultiHeadAttentionImpl* self = nullptr;
        nn::MultiHeadAttentionImpl* cross = nullptr;
        nn::FeedForwardImpl* ff = nullptr;
        torch::nn::ModuleList subs{nullptr};
        if (enc) {
            auto& e = *layers[l]->as<nn::EncoderLayerImpl>();
            self = e.self_attn.get();
            ff = e.feed_forward.is_empty() ? nullptr : e.feed_forward.get();
            subs = e.sublayer;
        } else {
            auto& d = *layers[l]->as<nn::DecoderLayerImpl>();
            self = d.self_attn.get();
            cross = d.src_attn.is_empty() ? nullptr : d.src_attn.get();
            ff = d.feed_forward.is_empty() ? nullptr : d.feed_forward.get();
            subs = d.sublayer;
        }
        std::size_t sub = 0;
        for (auto* att : {self, cross}) {
            if (!att)
                continue;
            const bool isCross = att == cross;
            const std::string part = isCross ? "cross" : "attn";
            const auto kind = enc       ? AttentionKind::Encoder
                              : isCross ? AttentionKind::Cross
                                        : AttentionKind::Decoder;
            auto& norm = *subs[sub++]->as<nn::SublayerImpl>()->norm;
            const auto before = pass.stream[point - 1][0]; // (T, C): the rows entering the sublayer
            InsideInputs in;
            in.attention = att;
            in.norm = &norm;
            in.postNorm = c.postNorm;
            in.residual = before;
            in.causal = !enc && !isCross;
            if (enc || isCross)
                in.visible = pass.sourceVisible;
            if (isCross)
                in.memory = pass.memory[0]; // (S, C)
            in.off = ablation.layerMask(kind, layer, static_cast<int>(att->heads()));
            const auto row = computeInside(in, 0, position);
            const auto H = att->heads(), hs = att->headSize();
            const auto concat = torch::tensor(row.concat); // (C)
            const auto& wo = *att->linears[3]->as<torch::nn::Linear>();
            const auto w = wo.weight.to(torch::kFloat32);                                   // (C, H·hs)
            const auto heads = (w.view({-1, H, hs}) * concat.view({1, H, hs})).sum(-1).t(); // (H, C)
            auto written = heads.sum(0);                                                    // (C)
            for (int64_t h = 0; h < H; ++h)
                parts.add(meta(std::to_string(l) + "." + part + "." + std::to_string(h), "head", layer,
                               static_cast<int>(h), part),
                          heads[h]);
            if (wo.bias.defined()) {
                parts.add(meta(std::to_string(l) + "." + part + ".bias", "head_bias", layer, -1, part),
                          wo.bias);
                written = written + wo.bias.to(torch::kFloat32);
            }
            const auto after = pass.stream[point][0][i].to(torch::kFloat32); // (C)
            if (c.postNorm) {
                parts.throughNorm(norm, std::to_string(l) + "." + part + ".norm", layer, part);
                const auto sum = before[i].to(torch::kFloat32) + written;
                out.splitGap = std::max(
                    out.splitGap,
                    (norm.forward(sum.view({1, 1, -1})).view({-1}) - after).abs().max().item<double>());
            } else {
                out.splitGap =
                    std::max(out.splitGap,
                             (before[i].to(torch::kFloat32) + written - after).abs().max().item<double>());
            }
            ++point;
        }
        if (ff) {
            auto& norm = *subs[sub++]->as<nn::SublayerImpl>()->norm;
            const auto before = pass.stream[point - 1][0][i]; // (C)
            const auto name = std::to_string(l) + ".mlp";
            if (c.postNorm) {
                // The norm comes after the sum: the MLP read the residual itself.
                parts.add(meta(name, "mlp", layer, -1, "mlp"),
                          ff->forward(before.view({1, 1, -1})).view({-1}));
                parts.throughNorm(norm, name + ".norm", layer, "mlp");
            } else {
                parts.add(meta(name, "mlp", layer, -1, "mlp"), pass.stream[point][0][i] - before);
            }
            ++point;
        }
    }
    // Through what the output reads after the stream: the final norm of a pre-norm side, and a masked-LM
    // head's transform (dense, the activation frozen at its measured gate, its norm).
    if (auto last = enc ? net.encoder->norm : net.decoder->norm)
        parts.throughNorm(*last, "final_norm", -1, "");
    if (generator.dense) {
        const auto& dense = *generator.dense;
        const auto x = parts.stacked().sum(0);                  // (C)
        const auto u = nn::linear(x, dense.weight, dense.bias); // (C)
        const auto a = nn::activate(generator.activation(), u); // (C)
        // act(u) = gate ⊙ u exactly at the measured u; where u is 0 the part there is 0 anyway.
        const auto gate = torch::where(u.abs() > 1e-12, a / u, torch::full_like(u, 0.5)); // (C)
        parts.replace(torch::matmul(parts.stacked(), dense.weight.to(torch::kFloat32).t()) * gate);
        if (dense.bias.defined())
            parts.add(meta("head_transform", "head_transform", -1, -1, ""),
                      dense.bias.to(torch::kFloat32) * gate);
        parts.throughNorm(*generator.norm, "head_norm", -1, "");
    }
    // Each part's share of the logit (or of the difference): its product with the output row.
    const auto weight = generator.outputWeight();
    auto direction = weight[out.token].to(torch::kFloat32); // (C)
    if (versus >= 0)
        direction = direction - weight[versus].to(torch::kFloat32);
    const auto shares =
        torch::matmul(parts.stacked().to(torch::kFloat64), direction.to(torch::kFloat64)); // (N)
    for (std::size_t k = 0; k < parts.info.size(); ++k) {
        auto& comp = parts.info[k];
        comp.contribution = shares[static_cast<int64_t>(k)].item<double>();
        out.sum += comp.contribution;
        out.components.push_back(std::move(comp));
    }
    if (extremes > 0) {
        // Every component's direct effect on every logit: one product of the parts with the output matrix.
        const auto effects = torch::matmul(parts.stacked(), weight.to(torch::kFloat32).t()); // (N, V)
        const auto k = std::min<int64_t>(extremes, effects.size(1));
        const auto [up, upIds] = effects.topk(k, 1);                        // (N, k)
        const auto [down, downIds] = effects.topk(k, 1, /*largest=*/false); // (N, k)
        for (std::size_t n = 0; n < out.components.size(); ++n)
            for (int64_t j = 0; j < k; ++j) {
                const auto r = static_cast<int64_t>(n);
                out.components[n].promotes.emplace_back(upIds[r][j].item<int64_t>(), up[r][j].item<float>());
                out.components[n].suppresses.emplace_back(downIds[r][j].item<int64_t>(),
                                                          down[r][j].item<float>());
            }
    }
    if (const auto bias = generator.outputBias(); bias.defined()) {
        const double b = bias[out.token].item<double>() - (versus >= 0 ? bias[versus].item<double>() : 0.0);
        out.components.push_back(meta("output_bias", "output_bias", -1, -1, ""));
        out.components.back().contribution = b;
        out.sum += b;
    }
    out.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

} // namespace core
