#include "core/model/Model.h"

#include "core/base/Errors.h"
#include "core/model/ModelDirectory.h"
#include "core/model/ModelParts.h"

#include <torch/torch.h>

namespace core {

const ModelParts& parts(const Model& model) {
    return *model.parts_;
}

Model::Model(std::unique_ptr<ModelParts> parts) : parts_(std::move(parts)) {}
Model::~Model() = default;

std::shared_ptr<const Model> Model::adopt(std::unique_ptr<ModelParts> parts) {
    parts->module().eval(); // for good: a Model never trains
    return std::shared_ptr<const Model>(new Model(std::move(parts)));
}

std::shared_ptr<const Model> Model::load(const std::string& dir, DeviceChoice device) {
    return adopt(ModelDirectory::read(dir, device));
}

std::shared_ptr<const Model> Model::createRandom(const ModelConfig& config, Vocabulary src, Vocabulary tgt,
                                                 uint64_t seed, DeviceChoice device) {
    const auto spec = config.tokenizerSpec();
    // A classifier's target side is its classes (config.json names them), whatever tgt holds.
    const bool classes = config.family == Family::AttentionClassifier;
    return createRandom(config, config.twoSided() ? makeTokenizer(spec, std::move(src)) : nullptr,
                        classes ? nullptr : makeTokenizer(spec, std::move(tgt)), seed, device);
}

std::shared_ptr<const Model> Model::createRandom(const ModelConfig& config, std::unique_ptr<Tokenizer> src,
                                                 std::unique_ptr<Tokenizer> tgt, uint64_t seed,
                                                 DeviceChoice device) {
    configureThreads();
    config.validate("config");
    if (!tgt && config.family == Family::AttentionClassifier)
        tgt = classTokenizer(config);
    if (!tgt || tgt->vocab().size() != config.tgtVocabSize ||
        (config.twoSided() && (!src || src->vocab().size() != config.srcVocabSize)))
        throw ConfigError("vocabulary sizes disagree with the config");
    auto parts = std::make_unique<ModelParts>();
    parts->config = config;
    parts->tgtTokenizer = std::move(tgt);
    if (config.twoSided())
        parts->srcTokenizer = std::move(src);
    torch::manual_seed(seed);
    buildFamilyNetwork(*parts);
    if (parts->net)
        initLikeSeed(*parts->net);
    parts->device = resolveDevice(device);
    parts->module().to(parts->device);
    return adopt(std::move(parts));
}

Vocabulary Model::defaultVocabulary(int64_t size) {
    std::vector<std::string> tokens;
    for (char ch = ' '; ch <= '~' && static_cast<int64_t>(tokens.size()) + 4 < size; ++ch)
        tokens.emplace_back(1, ch);
    while (static_cast<int64_t>(tokens.size()) + 4 < size)
        tokens.push_back("<extra_" + std::to_string(tokens.size()) + ">");
    auto v = Vocabulary::fromTokens(tokens);
    if (v.size() != size)
        throw ConfigError("a vocabulary needs at least 4 tokens (the specials), asked for " +
                          std::to_string(size));
    return v;
}

void Model::save(const std::string& dir, DType dtype) const {
    ModelDirectory::write(dir, parts_->config, parts_->srcTokenizer.get(), *parts_->tgtTokenizer,
                          parts_->module(), dtype);
}

const ModelConfig& Model::config() const {
    return parts_->config;
}
const std::string& Model::directory() const {
    return parts_->directory;
}
std::string Model::deviceName() const {
    return parts_->device.str();
}
const Tokenizer& Model::sourceTokenizer() const {
    return parts_->sourceTokenizer();
}
const Tokenizer& Model::targetTokenizer() const {
    return *parts_->tgtTokenizer;
}

namespace {
Token special(const Vocabulary& v, int64_t id) {
    Token t;
    t.id = id;
    t.text = v.token(id);
    t.special = true;
    return t;
}
} // namespace

std::pair<std::vector<int64_t>, std::vector<int64_t>> Model::sourceFrame() const {
    // As the tokenizer frames one sequence: <bos> … <eos> by default, as training here frames a translation's
    // source; [CLS] … [SEP] for BERT's tokenizer.json; … </s> for Marian's.
    const auto& tok = sourceTokenizer();
    return {tok.promptPrefix(), tok.promptSuffix()};
}

std::vector<Token> Model::sourceTokens(const std::string& text) const {
    if (!config().hasEncoder())
        return targetTokens(text);
    const auto& tok = sourceTokenizer();
    const auto [prefix, suffix] = sourceFrame();
    std::vector<Token> out;
    for (const auto id : prefix)
        out.push_back(special(tok.vocab(), id));
    for (auto& t : tok.tokenize(text))
        out.push_back(std::move(t));
    for (const auto id : suffix)
        out.push_back(special(tok.vocab(), id));
    return out;
}

std::vector<Token> Model::targetTokens(const std::string& text) const {
    const auto& tok = targetTokenizer();
    std::vector<Token> out;
    // A decoder-only prompt starts as its tokenizer starts a sequence; a translation's target with <bos>.
    for (const auto id : config().twoSided() ? std::vector<int64_t>{tok.vocab().bos()} : tok.promptPrefix())
        out.push_back(special(tok.vocab(), id));
    for (auto& t : tok.tokenize(text))
        out.push_back(std::move(t));
    return out;
}

std::vector<Token> Model::tokensFromIds(const std::vector<int64_t>& ids, bool source) const {
    const auto& v = (source ? sourceTokenizer() : targetTokenizer()).vocab();
    std::vector<Token> out;
    for (const auto id : ids) {
        Token t;
        t.id = id;
        t.text = v.token(id); // throws InputError for an id outside the vocabulary
        t.special = v.isSpecial(id);
        out.push_back(std::move(t));
    }
    return out;
}

std::vector<float> Model::positionalTable(bool source) const {
    if (!parts_->net)
        return {}; // a recurrent network's positions are in its state, not in a table
    const auto& net = *parts_->net;
    const auto& stack = (source && net.src_embed) || !net.tgt_embed ? net.src_embed : net.tgt_embed;
    auto t = stack->positions->table();
    if (!t.defined())
        return {};
    t = t.detach().to(torch::kCPU, torch::kFloat32);
    if (config().sinusoidHalves) {
        const auto P = t.size(0), half = t.size(1) / 2;
        t = torch::stack({t.narrow(1, 0, half), t.narrow(1, half, half)}, 2).reshape({P, 2 * half}); // (P, C)
    }
    t = t.contiguous();
    return {t.data_ptr<float>(), t.data_ptr<float>() + t.numel()};
}

} // namespace core
