#include "core/Model.h"

#include "core/Errors.h"
#include "core/Files.h"
#include "core/Gpt2Checkpoint.h"
#include "core/ModelImpl.h"
#include "core/Safetensors.h"
#include "core/WeightIO.h"

#include <torch/torch.h>

#include <chrono>
#include <filesystem>
#include <set>

namespace core {

namespace fs = std::filesystem;

namespace {

double msSince(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

torch::Device resolveDevice(DeviceChoice choice) {
    if (choice == DeviceChoice::Cpu)
        return torch::kCPU;
    if (choice == DeviceChoice::Cuda && !torch::cuda::is_available())
        throw InputError("--device cuda: this LibTorch build sees no CUDA device");
    return torch::cuda::is_available() ? torch::Device(torch::kCUDA) : torch::Device(torch::kCPU);
}

void Model::Impl::checkIds(const std::vector<int64_t>& ids, int64_t vocab, const char* side) const {
    if (ids.empty())
        throw InputError(std::string("the ") + side + " is empty");
    if (static_cast<int64_t>(ids.size()) > config.maxLen)
        throw InputError(std::string("the ") + side + " has " + std::to_string(ids.size()) +
                         " tokens; this model takes at most " + std::to_string(config.maxLen));
    for (const auto id : ids)
        if (id < 0 || id >= vocab)
            throw InputError(std::string("the ") + side + " has token id " + std::to_string(id) +
                             ", outside the vocabulary 0.." + std::to_string(vocab - 1));
}

torch::Tensor Model::Impl::toTensor(const std::vector<int64_t>& ids) const {
    return torch::tensor(ids, torch::kLong).unsqueeze(0).to(device); // (1, T)
}

Model::Model(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

std::shared_ptr<const Model> Model::adopt(std::unique_ptr<Impl> impl) {
    impl->net->eval();
    return std::shared_ptr<const Model>(new Model(std::move(impl)));
}
Model::~Model() = default;

std::shared_ptr<const Model> Model::load(const std::string& dirName, DeviceChoice device) {
    configureThreads();
    const fs::path dir(dirName);
    if (!fs::is_directory(dir))
        throw ModelError(dirName + ": not a model directory");
    const auto configPath = dir / "config.json";
    if (!fs::exists(configPath))
        throw ModelError(dirName + ": missing config.json");
    // A Hugging Face GPT-2 directory is read as it is: its config.json and tensor names are mapped here.
    const auto configText = readFile(configPath.string());
    const bool gpt2 = isGpt2Config(configText);
    if (const auto type = foreignModelType(configText); !type.empty())
        throw ModelError(configPath.string() + ": a Hugging Face \"" + type +
                         "\" model; attnscope reads GPT-2 checkpoints (\"gpt2\") and its own format");
    auto impl = std::make_unique<Impl>();
    impl->config = gpt2 ? gpt2Config(configText, configPath.string())
                        : ModelConfig::fromJson(configText, configPath.string());
    impl->directory = dirName;
    const auto& c = impl->config;
    impl->tgtTokenizer =
        loadTokenizer(c, dirName, c.tgtVocabFile, c.tgtVocabSize, gpt2 ? "vocab_size" : "tgt_vocab_size");
    if (c.hasEncoder())
        impl->srcTokenizer = loadTokenizer(c, dirName, c.srcVocabFile, c.srcVocabSize, "src_vocab_size");
    const auto weights = dir / "model.safetensors";
    if (!fs::exists(weights))
        throw ModelError(dirName + ": missing model.safetensors");
    const auto file = SafetensorsFile::open(weights.string());
    impl->net = nn::Transformer(c);
    if (gpt2)
        loadGpt2Weights(*impl->net, file);
    else
        loadWeights(*impl->net, file);
    impl->device = resolveDevice(device);
    impl->net->to(impl->device);
    impl->net->eval();
    return std::shared_ptr<const Model>(new Model(std::move(impl)));
}

std::shared_ptr<const Model> Model::createRandom(const ModelConfig& config, Vocabulary src, Vocabulary tgt,
                                                 uint64_t seed, DeviceChoice device) {
    return createRandom(config, config.hasEncoder() ? makeTokenizer(config, std::move(src)) : nullptr,
                        makeTokenizer(config, std::move(tgt)), seed, device);
}

std::shared_ptr<const Model> Model::createRandom(const ModelConfig& config, std::unique_ptr<Tokenizer> src,
                                                 std::unique_ptr<Tokenizer> tgt, uint64_t seed,
                                                 DeviceChoice device) {
    configureThreads();
    config.validate("config");
    if (!tgt || tgt->vocab().size() != config.tgtVocabSize ||
        (config.hasEncoder() && (!src || src->vocab().size() != config.srcVocabSize)))
        throw ConfigError("vocabulary sizes disagree with the config");
    auto impl = std::make_unique<Impl>();
    impl->config = config;
    impl->tgtTokenizer = std::move(tgt);
    if (config.hasEncoder())
        impl->srcTokenizer = std::move(src);
    torch::manual_seed(seed);
    impl->net = nn::Transformer(config);
    initLikeSeed(*impl->net);
    impl->device = resolveDevice(device);
    impl->net->to(impl->device);
    impl->net->eval();
    return std::shared_ptr<const Model>(new Model(std::move(impl)));
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

void initLikeSeed(nn::TransformerImpl& net) {
    torch::NoGradGuard noGrad;
    for (auto& p : net.parameters())
        if (p.dim() > 1)
            torch::nn::init::xavier_uniform_(p);
}

namespace {

// The directory for Model::save and writeModelDirectory (which keeps F32 for checkpoints).
void writeDirectory(const std::string& dirName, const ModelConfig& c, const Tokenizer* src,
                    const Tokenizer& tgt, nn::TransformerImpl& net, DType dtype) {
    const fs::path dir(dirName);
    std::error_code ec;
    const bool created = fs::create_directories(dir, ec);
    if (ec)
        throw IoError("cannot create " + dirName + ": " + ec.message());
    // Parameters take the dtype asked for. The sinusoidal tables (the only tensors that are not parameters)
    // stay F32: the loader adds a stored table as it is, without comparing it with the formula, so an F16
    // table would shift every position's encoding by up to 2.4e-4 for a saving of 2·max_len·d_model·2 bytes
    // (128 KB of 15 MB for en-es). F32 keeps them bit-identical to the computed ones; mixed dtypes are valid
    // safetensors, and the seed's load_state_dict converts on copy.
    std::set<std::string> parameters;
    for (const auto& item : net.named_parameters(true))
        parameters.insert(item.key());
    const auto tensors = tensorsToSave(net);
    std::vector<TensorToWrite> out;
    for (const auto& [name, t] : tensors)
        out.push_back(
            {name, t.sizes().vec(), t.data_ptr<float>(), parameters.count(name) ? dtype : DType::F32});
    // The weights first: F16 refuses a model with out-of-range weights, and then no config.json or
    // tokenizer file should be left behind to pass for a model directory.
    try {
        writeSafetensors((dir / "model.safetensors").string(), out,
                         {{"format", "pt"}, {"producer", "attnscope"}});
    } catch (const InputError&) {
        if (created)
            fs::remove(dir, ec); // only removes it while still empty
        throw;
    }
    writeFileAtomically((dir / "config.json").string(), c.toJson());
    writeFileAtomically((dir / c.tgtVocabFile).string(), tgt.fileContents());
    for (const auto& [name, contents] : tgt.extraFiles(c))
        writeFileAtomically((dir / name).string(), contents);
    if (src && c.srcVocabFile != c.tgtVocabFile)
        writeFileAtomically((dir / c.srcVocabFile).string(), src->fileContents());
}

} // namespace

void writeModelDirectory(const std::string& dirName, const ModelConfig& c, const Tokenizer* src,
                         const Tokenizer& tgt, nn::TransformerImpl& net) {
    writeDirectory(dirName, c, src, tgt, net, DType::F32);
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

void Model::save(const std::string& dirName, DType dtype) const {
    writeDirectory(dirName, impl_->config, impl_->srcTokenizer.get(), *impl_->tgtTokenizer, *impl_->net,
                   dtype);
}

const ModelConfig& Model::config() const {
    return impl_->config;
}
const std::string& Model::directory() const {
    return impl_->directory;
}
std::string Model::deviceName() const {
    return impl_->device.str();
}
const Tokenizer& Model::sourceTokenizer() const {
    return impl_->srcTokenizer ? *impl_->srcTokenizer : *impl_->tgtTokenizer;
}
const Tokenizer& Model::targetTokenizer() const {
    return *impl_->tgtTokenizer;
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

std::vector<Token> Model::sourceTokens(const std::string& text) const {
    if (!config().hasEncoder())
        return targetTokens(text);
    const auto& tok = sourceTokenizer();
    std::vector<Token> out{special(tok.vocab(), tok.vocab().bos())};
    for (auto& t : tok.tokenize(text))
        out.push_back(std::move(t));
    out.push_back(special(tok.vocab(), tok.vocab().eos()));
    return out;
}

std::vector<Token> Model::targetTokens(const std::string& text) const {
    const auto& tok = targetTokenizer();
    std::vector<Token> out{special(tok.vocab(), tok.vocab().bos())};
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

AttentionSnapshot Model::analyze(const std::vector<int64_t>& src, const std::vector<int64_t>& tgt,
                                 bool capture) const {
    auto& m = *impl_;
    const bool enc = m.config.hasEncoder();
    if (enc)
        m.checkIds(src, m.config.srcVocabSize, "source");
    m.checkIds(tgt, m.config.tgtVocabSize, enc ? "target" : "prompt");

    torch::NoGradGuard noGrad;
    AttentionSnapshot snap;
    snap.modelName = m.config.name;
    if (enc)
        snap.srcTokens = tokensFromIds(src, true);
    snap.tgtTokens = tokensFromIds(tgt, false);
    nn::Capture cap;
    auto* capPtr = capture ? &cap : nullptr;

    torch::Tensor memory, srcMask;
    auto t0 = std::chrono::steady_clock::now();
    if (enc) {
        const auto s = m.toTensor(src); // (1, S)
        srcMask = nn::sourceMask(s, m.srcPad());
        memory = m.net->encode(s, srcMask, capPtr); // (1, S, C)
        snap.encodeMs = msSince(t0);
    }
    t0 = std::chrono::steady_clock::now();
    const auto t = m.toTensor(tgt); // (1, T)
    // Only the last position's distribution is kept, so the decoder computes only that row's output.
    const auto h = m.net->decode(t, memory, srcMask, nn::targetMask(t, m.pad()), 0, nullptr, capPtr,
                                 /*lastOnly=*/true); // (1, 1, C)
    const auto logp = m.net->generator
                          ->forward(h) // (1, 1, V)
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

std::vector<float> Model::positionalTable(bool source) const {
    auto& net = *impl_->net;
    const auto& stack = (source && net.src_embed) ? net.src_embed : net.tgt_embed;
    auto t = stack->positions->table();
    if (!t.defined())
        return {};
    t = t.detach().to(torch::kCPU, torch::kFloat32).contiguous();
    return {t.data_ptr<float>(), t.data_ptr<float>() + t.numel()};
}

} // namespace core
