#include "core/IncrementalDecoder.h"

#include "core/Errors.h"
#include "core/ModelImpl.h"

#include <torch/torch.h>

#include <chrono>

namespace core {

struct IncrementalDecoder::Impl {
    std::shared_ptr<const Model> model;
    bool capture = true;
    torch::Tensor memory;  // (1, S, C)
    torch::Tensor srcMask; // (1, 1, S)
    nn::DecodeCache cache;
    AttentionBlock encoder;
    double encodeMs = 0.0;
};

IncrementalDecoder::IncrementalDecoder(std::shared_ptr<const Model> model, const std::vector<int64_t>& src,
                                       bool capture)
    : impl_(std::make_unique<Impl>()) {
    impl_->model = std::move(model);
    impl_->capture = capture;
    auto& m = impl_->model->impl();
    if (!m.config.hasEncoder())
        return;
    m.checkIds(src, m.config.srcVocabSize, "source");
    torch::NoGradGuard noGrad;
    const auto t0 = std::chrono::steady_clock::now();
    const auto s = m.toTensor(src); // (1, S)
    impl_->srcMask = nn::sourceMask(s, m.srcPad());
    nn::Capture cap;
    impl_->memory = m.net->encode(s, impl_->srcMask, capture ? &cap : nullptr); // (1, S, C)
    impl_->encoder = std::move(cap.encoderSelf);
    impl_->encodeMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

IncrementalDecoder::~IncrementalDecoder() = default;

IncrementalDecoder::Step IncrementalDecoder::push(int64_t token) {
    return push(std::vector<int64_t>{token});
}

IncrementalDecoder::Step IncrementalDecoder::push(const std::vector<int64_t>& tokens) {
    auto& m = impl_->model->impl();
    const auto pos = length();
    const auto n = static_cast<int64_t>(tokens.size());
    if (n == 0)
        throw InputError("no target tokens to feed");
    if (pos + n > m.config.maxLen)
        throw InputError("the target would have " + std::to_string(pos + n) +
                         " tokens; this model's max_len is " + std::to_string(m.config.maxLen));
    m.checkIds(tokens, m.config.tgtVocabSize, "target");
    torch::NoGradGuard noGrad;
    const auto t0 = std::chrono::steady_clock::now();
    nn::Capture cap;
    // A single new query may see every cached key, so it needs no mask. Several new queries see the cached
    // keys and the new ones up to their own: row i of the (1, n, pos + n) mask ends at key pos + i.
    torch::Tensor mask;
    if (n > 1)
        mask = torch::ones({1, n, pos + n}, torch::TensorOptions().dtype(torch::kBool)).tril(pos);
    // Only the last token's distribution is kept: the last layer computes only its row past attention.
    const auto h = m.net->decode(m.toTensor(tokens), impl_->memory, impl_->srcMask, mask, pos, &impl_->cache,
                                 impl_->capture ? &cap : nullptr, /*lastOnly=*/true); // (1, 1, C)
    const auto logp =
        m.net->generator->forward(h).reshape({-1}).to(torch::kCPU, torch::kFloat32).contiguous(); // (V)
    Step step;
    step.logProbs.assign(logp.data_ptr<float>(), logp.data_ptr<float>() + logp.numel());
    step.selfRows = std::move(cap.decoderSelf);
    step.crossRows = std::move(cap.cross);
    step.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return step;
}

void IncrementalDecoder::rewind(int64_t n) {
    impl_->cache.truncate(std::max<int64_t>(0, n));
}
int64_t IncrementalDecoder::length() const {
    return impl_->cache.length();
}
const AttentionBlock& IncrementalDecoder::encoderAttention() const {
    return impl_->encoder;
}
double IncrementalDecoder::encodeMs() const {
    return impl_->encodeMs;
}
const Model& IncrementalDecoder::model() const {
    return *impl_->model;
}

} // namespace core
