#include "core/run/Analyze.h"

#include "core/model/ModelParts.h"

#include <torch/torch.h>

#include <chrono>
#include <tuple>

// Shapes: S source length, T target length, C channels, V target vocabulary.

namespace core {

namespace {

double msSince(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

AttentionSnapshot analyze(const Model& model, const std::vector<int64_t>& src,
                          const std::vector<int64_t>& tgt, bool capture) {
    const auto& m = parts(model);
    const bool enc = m.config.hasEncoder();
    if (enc)
        m.checkIds(src, m.config.srcVocabSize, "source");
    if (m.config.hasDecoder())
        m.checkIds(tgt, m.config.tgtVocabSize, enc ? "target" : "prompt");

    torch::NoGradGuard noGrad;
    AttentionSnapshot snap;
    snap.modelName = m.config.name;
    snap.kvHeads = m.config.keyValueHeads() < m.config.heads ? m.config.keyValueHeads() : 0;
    if (enc)
        snap.srcTokens = model.tokensFromIds(src, true);
    if (m.config.hasDecoder())
        snap.tgtTokens = model.tokensFromIds(tgt, false);
    nn::Capture cap;
    auto* capPtr = capture ? &cap : nullptr;

    torch::Tensor memory, srcMask;
    auto t0 = std::chrono::steady_clock::now();
    if (enc) {
        const auto s = m.toTensor(src); // (1, S)
        srcMask = nn::sourceMask(s, m.srcPad());
        memory = m.encode(s, srcMask, capPtr); // (1, S, C)
        snap.encodeMs = msSince(t0);
    }
    if (!m.config.hasDecoder()) { // an encoder-only model reads and decodes nothing
        t0 = std::chrono::steady_clock::now();
        std::tie(snap.maskRow, snap.nextTokenLogProbs) = m.maskFill(src, memory);
        snap.decodeMs = msSince(t0);
        snap.decodes = false;
        snap.encoder = std::move(cap.encoderSelf);
        return snap;
    }
    t0 = std::chrono::steady_clock::now();
    const auto t = m.toTensor(tgt); // (1, T)
    // Only the last position's distribution is kept, so the decoder computes only that row's output.
    const auto h = m.decode(t, memory, srcMask, nn::targetMask(t, m.pad()), 0, nullptr, capPtr,
                            /*lastOnly=*/true); // (1, 1, C)
    const auto logp = m.logProbs(h)             // (1, 1, V)
                          .reshape({-1})
                          .to(torch::kCPU, torch::kFloat32)
                          .contiguous();
    snap.nextTokenLogProbs.assign(logp.data_ptr<float>(), logp.data_ptr<float>() + logp.numel());
    snap.decodeMs = msSince(t0);
    snap.encoder = std::move(cap.encoderSelf);
    snap.decoder = std::move(cap.decoderSelf);
    snap.cross = std::move(cap.cross);
    return snap;
}

} // namespace core
