#include "core/analysis/StreamPass.h"

#include "core/base/Errors.h"
#include "core/model/ModelParts.h"
#include "core/model/nn/Capture.h"
#include "core/model/nn/Transformer.h"

#include <torch/torch.h>

namespace core {

namespace {

std::vector<int64_t> idsOf(const std::vector<Token>& tokens) {
    std::vector<int64_t> ids;
    ids.reserve(tokens.size());
    for (const auto& t : tokens)
        ids.push_back(t.id);
    return ids;
}

} // namespace

std::string whyNoStreamReading(const ModelConfig& c) {
    if (c.recurrent())
        return "'" + c.name + "' is not a Transformer: it has no residual stream to read";
    if (!c.hasOutput())
        return "'" + c.name + "' has no output layer to read its stream through (an encoder without a " +
               "masked-LM head)";
    return {};
}

StreamPass recordStream(const Model& model, const AttentionSnapshot& snap, const HeadAblation& ablation,
                        const std::string& what) {
    const auto& m = parts(model);
    const auto& c = m.config;
    if (const auto why = whyNoStreamReading(c); !why.empty())
        throw InputError(what + ": " + why);
    StreamPass pass;
    pass.encoderSide = !c.hasDecoder();
    pass.tokens = pass.encoderSide ? snap.srcTokens : snap.tgtTokens;
    if (pass.tokens.empty())
        throw InputError(what + ": the run has no tokens to read");
    checkAblation(ablation, c);
    const auto* off = ablation.empty() ? nullptr : &ablation;
    torch::NoGradGuard noGrad;
    nn::Capture cap;
    cap.attention = false; // the stream alone: a long text's T × T weights are not needed here
    cap.keepStream = true;
    const auto ids = m.toTensor(idsOf(pass.tokens)); // (1, T)
    const auto T = ids.size(1);
    const auto visibleOf = [&](const torch::Tensor& mask) { // (1, 1, S) bool
        const auto flat = mask.reshape({-1}).to(torch::kCPU).contiguous();
        std::vector<bool> v;
        for (int64_t j = 0; j < flat.numel(); ++j)
            v.push_back(flat[j].item<bool>());
        return v;
    };
    if (pass.encoderSide) {
        const auto mask = nn::sourceMask(ids, m.srcPad()); // (1, 1, T)
        m.encode(ids, mask, &cap, off);
        pass.sourceVisible = visibleOf(mask);
    } else {
        torch::Tensor srcMask;
        if (c.hasEncoder()) {
            const auto src = m.toTensor(idsOf(snap.srcTokens)); // (1, S)
            srcMask = nn::sourceMask(src, m.srcPad());
            pass.memory = m.encode(src, srcMask, nullptr, off); // (1, S, C)
            pass.sourceVisible = visibleOf(srcMask);
        }
        // Causal over the whole prefix, as the decode's own passes saw it (no padding inside a run).
        const auto mask = torch::ones({1, T, T}, torch::TensorOptions().dtype(torch::kBool).device(m.device))
                              .tril(); // (1, T, T)
        m.decode(ids, pass.memory, srcMask, mask, 0, nullptr, &cap, false, off);
    }
    TORCH_INTERNAL_ASSERT(cap.stream.size() == cap.streamPoints.size() && !cap.stream.empty(),
                          "the pass recorded no stream");
    pass.points = std::move(cap.streamPoints);
    pass.stream = std::move(cap.stream);
    return pass;
}

} // namespace core
