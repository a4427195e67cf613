#include "core/model/ModelParts.h"

#include "core/base/Errors.h"
#include "core/base/Memory.h"
#include "core/text/TokenizerFactory.h"

#include <torch/torch.h>

#include <algorithm>

namespace core {

void ModelParts::checkIds(const std::vector<int64_t>& ids, int64_t vocab, const char* side,
                          int64_t positions) const {
    if (ids.empty())
        throw InputError(std::string("the ") + side + " is empty");
    const auto limit = positions > 0 ? positions : int64_t{config.maxLen};
    if (static_cast<int64_t>(ids.size()) > limit)
        throw InputError(std::string("the ") + side + " has " + std::to_string(ids.size()) +
                         " tokens; this model takes at most " + std::to_string(limit));
    for (const auto id : ids)
        if (id < 0 || id >= vocab)
            throw InputError(std::string("the ") + side + " has token id " + std::to_string(id) +
                             ", outside the vocabulary 0.." + std::to_string(vocab - 1));
}

nn::Transformer buildNetwork(const ModelConfig& config, int copies) {
    checkMemoryFor(copies * config.weightBytes(),
                   copies == 1 ? "the weights of this model"
                               : "training this model (its weights, gradients and optimiser state)");
    try {
        return nn::Transformer(config);
    } catch (const std::bad_alloc&) {
    } catch (const c10::Error&) { // LibTorch's allocator reports a failed allocation as its own error
    }
    throw ModelError("not enough memory for a model of " + std::to_string(config.parameterCount()) +
                     " parameters (" + byteText(config.weightBytes()) + ")");
}

torch::Tensor ModelParts::toTensor(const std::vector<int64_t>& ids) const {
    return torch::tensor(ids, torch::kLong).unsqueeze(0).to(device); // (1, T)
}

torch::nn::Module& ModelParts::module() const {
    if (classifier)
        return *classifier.ptr();
    if (gru)
        return *gru.ptr();
    return *net.ptr();
}

// ptr() hands out the module itself: the one place a const model reaches its non-const forward().
nn::TransformerImpl& ModelParts::transformer() const {
    if (!net)
        throw InputError("'" + config.name + "' is a model of the " + toString(config.family) +
                         " family; this needs a Transformer");
    return *net.ptr();
}

torch::Tensor ModelParts::encode(const torch::Tensor& src, const torch::Tensor& srcMask, nn::Capture* capture,
                                 const HeadAblation* ablation) const {
    return transformer().encode(src, srcMask, capture, ablation); // (B, S, C)
}

torch::Tensor ModelParts::decode(const torch::Tensor& tgt, const torch::Tensor& memory,
                                 const torch::Tensor& srcMask, const torch::Tensor& tgtMask, int64_t pos0,
                                 nn::DecodeCache* cache, nn::Capture* capture, bool lastOnly,
                                 const HeadAblation* ablation) const {
    return transformer().decode(tgt, memory, srcMask, tgtMask, pos0, cache, capture, lastOnly,
                                ablation); // (B, T|1, C)
}

torch::Tensor ModelParts::logits(const torch::Tensor& h) const {
    return transformer().generator->logits(h); // (B, T, V)
}

torch::Tensor ModelParts::finalNorm(const torch::Tensor& h, bool encoderSide) const {
    auto& network = transformer();
    auto norm = encoderSide ? network.encoder->norm : network.decoder->norm; // a holder: a shared pointer
    return norm ? norm(h) : h;                                               // (B, T, C)
}

torch::Tensor ModelParts::logProbs(const torch::Tensor& h) const {
    return transformer().generator->forward(h); // (B, T, V)
}

std::pair<int, std::vector<float>> ModelParts::maskFill(const std::vector<int64_t>& src,
                                                        const torch::Tensor& memory) const {
    if (config.hasDecoder() || !config.hasOutput())
        return {-1, {}};
    const auto& v = sourceTokenizer().vocab();
    auto mask = v.find("[MASK]");
    if (mask < 0)
        mask = v.find("<mask>");
    const auto at = std::find(src.begin(), src.end(), mask);
    if (mask < 0 || at == src.end())
        return {-1, {}};
    const auto row = static_cast<int>(at - src.begin());
    torch::NoGradGuard noGrad;
    const auto logp =
        logProbs(memory.narrow(1, row, 1)).reshape({-1}).to(torch::kCPU, torch::kFloat32).contiguous(); // (V)
    return {row, {logp.data_ptr<float>(), logp.data_ptr<float>() + logp.numel()}};
}

nn::AttentionClassifierImpl::Output ModelParts::classify(const torch::Tensor& tokens) const {
    const auto lengths = torch::full({1}, tokens.size(1), torch::kLong); // (1)
    return classifier.ptr()->forward(tokens, lengths);
}

std::tuple<torch::Tensor, torch::Tensor> ModelParts::encodeRecurrent(const torch::Tensor& src) const {
    return gru.ptr()->encoder->forward(src); // (1, S, H), (1, 1, H)
}

nn::AttentionDecoderRnnImpl::Step ModelParts::decodeRecurrent(const torch::Tensor& input,
                                                              const torch::Tensor& hidden,
                                                              const torch::Tensor& states) const {
    return gru.ptr()->decoder->forward(input, hidden, states);
}

std::unique_ptr<Tokenizer> classTokenizer(const ModelConfig& config) {
    return makeTokenizer({TokenizerKind::Word, false, {}}, Vocabulary::fromTokens(config.classes));
}

void buildFamilyNetwork(ModelParts& parts, int copies) {
    const auto& c = parts.config;
    if (!c.recurrent()) {
        parts.net = buildNetwork(c, copies);
        return;
    }
    checkMemoryFor(copies * c.weightBytes(), "the weights of this model");
    if (c.family == Family::AttentionClassifier)
        parts.classifier = nn::AttentionClassifier(c.srcVocabSize, c.embedSize, c.hiddenSize,
                                                   static_cast<int64_t>(c.classes.size()));
    else
        parts.gru = nn::GruTranslator(c.srcVocabSize, c.tgtVocabSize, c.hiddenSize,
                                      c.score == RecurrentScore::Additive);
}

void initLikeSeed(nn::TransformerImpl& net) {
    torch::NoGradGuard noGrad;
    for (auto& p : net.parameters())
        if (p.dim() > 1)
            torch::nn::init::xavier_uniform_(p);
}

torch::Tensor paddedIds(const std::vector<std::vector<int64_t>>& rows, int64_t pad) {
    std::size_t len = 0;
    for (const auto& r : rows)
        len = std::max(len, r.size());
    auto t = torch::full({static_cast<int64_t>(rows.size()), static_cast<int64_t>(len)}, pad, torch::kLong);
    auto a = t.accessor<int64_t, 2>();
    for (std::size_t i = 0; i < rows.size(); ++i)
        for (std::size_t j = 0; j < rows[i].size(); ++j)
            a[static_cast<int64_t>(i)][static_cast<int64_t>(j)] = rows[i][j];
    return t;
}

torch::Device resolveDevice(DeviceChoice choice) {
    if (choice == DeviceChoice::Cpu)
        return torch::kCPU;
    if (choice == DeviceChoice::Cuda && !torch::cuda::is_available())
        throw InputError("--device cuda: this LibTorch build sees no CUDA device");
    return torch::cuda::is_available() ? torch::Device(torch::kCUDA) : torch::Device(torch::kCPU);
}

} // namespace core
