#include "core/model/RecurrentNets.h"

#include "core/model/Safetensors.h"
#include "core/model/WeightIO.h"
#include "core/model/nn/AttentionClassifier.h"
#include "core/model/nn/GruTranslator.h"
#include "core/model/nn/HostData.h"

#include <torch/torch.h>

namespace core {

using nn::hostFloats;

struct ClassifierNet::Impl {
    nn::AttentionClassifier net{nullptr};
};

ClassifierNet::ClassifierNet(int64_t vocab, int64_t embed, int64_t hidden, int64_t classes, uint64_t seed)
    : impl_(std::make_unique<Impl>()) {
    torch::manual_seed(seed);
    impl_->net = nn::AttentionClassifier(vocab, embed, hidden, classes);
    impl_->net->eval();
}

ClassifierNet::~ClassifierNet() = default;

void ClassifierNet::load(const std::string& path) {
    loadParameters(*impl_->net, SafetensorsFile::open(path));
}

ClassifierNet::Result ClassifierNet::classify(const std::vector<int64_t>& ids) const {
    c10::InferenceMode inference; // lighter than NoGradGuard: no version counters, no autograd metadata
    const auto n = static_cast<int64_t>(ids.size());
    const auto out =
        impl_->net->forward(torch::tensor(ids).view({1, n}), torch::tensor({n})); // (1, K), (1, T)
    return {hostFloats(out.logits[0]), hostFloats(out.weights[0])};
}

struct GruTranslatorNet::Impl {
    nn::GruTranslator net{nullptr};
    torch::Tensor states; // (1, S, H)
    torch::Tensor hidden; // (1, 1, H)
};

GruTranslatorNet::GruTranslatorNet(int64_t srcVocab, int64_t tgtVocab, int64_t hidden, uint64_t seed)
    : impl_(std::make_unique<Impl>()) {
    torch::manual_seed(seed);
    impl_->net = nn::GruTranslator(srcVocab, tgtVocab, hidden);
    impl_->net->eval();
}

GruTranslatorNet::~GruTranslatorNet() = default;

void GruTranslatorNet::load(const std::string& path) {
    loadParameters(*impl_->net, SafetensorsFile::open(path));
}

void GruTranslatorNet::encode(const std::vector<int64_t>& src) {
    c10::InferenceMode inference; // lighter than NoGradGuard: no version counters, no autograd metadata
    const auto n = static_cast<int64_t>(src.size());
    std::tie(impl_->states, impl_->hidden) = impl_->net->encoder->forward(torch::tensor(src).view({1, n}));
}

GruTranslatorNet::Step GruTranslatorNet::step(int64_t token) {
    c10::InferenceMode inference; // lighter than NoGradGuard: no version counters, no autograd metadata
    const auto s =
        impl_->net->decoder->forward(torch::tensor({token}).view({1, 1}), impl_->hidden, impl_->states);
    impl_->hidden = s.hidden;
    return {hostFloats(s.logProbs[0]), hostFloats(s.weights[0])};
}

} // namespace core
