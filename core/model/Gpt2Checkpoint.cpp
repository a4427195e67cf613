#include "core/model/Gpt2Checkpoint.h"

#include "core/base/Errors.h"
#include "core/base/JsonText.h"
#include "core/model/WeightFiles.h"
#include "core/model/nn/Transformer.h"

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <filesystem>
#include <set>
#include <stdexcept>

// Shapes: C n_embd, F n_inner, V vocab_size, P n_positions.

namespace core {

using nlohmann::json;

namespace {

// GPT2Config's defaults, used for keys a config.json leaves out (as transformers does).
constexpr int kVocab = 50257, kPositions = 1024, kEmbd = 768, kLayers = 12, kHeads = 12;
constexpr double kEps = 1e-5;

class Gpt2Keys {
public:
    Gpt2Keys(const json& j, std::string source) : j_(j), source_(std::move(source)) {}

    [[noreturn]] void fail(const std::string& what) const { throw ConfigError(source_ + ": " + what); }

    bool has(const char* key) const { return j_.contains(key) && !j_[key].is_null(); }

    int integer(const char* key, int fallback, int limit) const {
        if (!has(key))
            return fallback;
        const auto& v = j_[key];
        if (!v.is_number_integer())
            fail(std::string("'") + key + "' must be an integer, got " + v.dump());
        const auto n = v.get<int64_t>();
        if (n < 1 || n > limit)
            fail(std::string("'") + key + "' is " + std::to_string(n) + "; expected 1.." +
                 std::to_string(limit));
        return static_cast<int>(n);
    }

    double number(const char* key, double fallback) const {
        if (!has(key))
            return fallback;
        if (!j_[key].is_number())
            fail(std::string("'") + key + "' must be a number, got " + j_[key].dump());
        return j_[key].get<double>();
    }

    std::string string(const char* key, const std::string& fallback) const {
        if (!has(key))
            return fallback;
        if (!j_[key].is_string())
            fail(std::string("'") + key + "' must be a string, got " + j_[key].dump());
        return j_[key].get<std::string>();
    }

    // A switch whose other setting changes what the network computes; `why` says how.
    void requireFlag(const char* key, bool expected, const char* why) const {
        if (!has(key))
            return;
        if (!j_[key].is_boolean())
            fail(std::string("'") + key + "' must be true or false, got " + j_[key].dump());
        if (j_[key].get<bool>() != expected)
            fail(std::string("'") + key + "': " + (expected ? "false" : "true") + " (" + why +
                 ") is not supported; attnscope implements GPT-2 with '" + key +
                 "': " + (expected ? "true" : "false"));
    }

private:
    const json& j_;
    std::string source_;
};

Activation gpt2Activation(const std::string& name, const Gpt2Keys& keys) {
    if (name == "gelu_new" || name == "gelu_pytorch_tanh")
        return Activation::GeluTanh;
    if (name == "gelu")
        return Activation::Gelu;
    if (name == "relu")
        return Activation::Relu;
    keys.fail("'activation_function' is \"" + name +
              "\"; supported are gelu_new, gelu_pytorch_tanh (the tanh approximation), gelu and relu");
}

// "_name_or_path" is a hub id ("openai-community/gpt2") or the local path the model was saved from; the
// directory may be a hub cache snapshot named by a commit hash, so the recorded name comes first.
std::string modelName(const std::string& nameOrPath, const std::string& source) {
    namespace fs = std::filesystem;
    if (!nameOrPath.empty()) {
        const bool local = nameOrPath.front() == '/' || nameOrPath.front() == '.' ||
                           nameOrPath.front() == '~' || nameOrPath.find('\\') != std::string::npos;
        auto path = fs::path(nameOrPath).lexically_normal();
        if (path.filename().empty()) // a trailing slash
            path = path.parent_path();
        const auto last = path.filename().string();
        if (!local)
            return nameOrPath;
        if (!last.empty() && last != "." && last != "..")
            return last;
    }
    const auto dir = fs::path(source).parent_path().lexically_normal().filename().string();
    return dir.empty() || dir == "." || dir == ".." ? "gpt2" : dir;
}

std::string shapeText(const std::vector<int64_t>& s) {
    std::string o = "[";
    for (std::size_t i = 0; i < s.size(); ++i)
        o += (i ? ", " : "") + std::to_string(s[i]);
    return o + "]";
}

// The checkpoint's tensors by their GPT-2 names, checked as they are taken; what is left over is refused.
class Gpt2Tensors {
public:
    explicit Gpt2Tensors(const WeightFiles& file)
        : file_(file), prefix_(file.find("transformer.wte.weight") ? "transformer." : "") {}

    const TensorInfo* find(const std::string& name) const { return file_.find(fullName(name)); }

    torch::Tensor take(const std::string& name, const std::vector<int64_t>& shape) {
        const auto full = fullName(name);
        const auto* info = file_.find(full);
        if (!info)
            throw ModelError(file_.path() + ": missing tensor '" + full + "' (expected shape " +
                             shapeText(shape) + ")");
        return read(*info, shape);
    }

    torch::Tensor read(const TensorInfo& info, const std::vector<int64_t>& shape) {
        if (info.shape != shape)
            throw ModelError(file_.path() + ": tensor '" + info.name + "' has shape " +
                             shapeText(info.shape) + " but config.json implies " + shapeText(shape));
        auto t = torch::empty(shape, torch::kFloat32);
        file_.copyFloat32(info, t.data_ptr<float>());
        used_.insert(info.name);
        return t;
    }

    void skip(const std::string& name) {
        if (file_.find(fullName(name)))
            used_.insert(fullName(name));
    }

    void refuseLeftovers() const {
        for (const auto& info : file_.tensors())
            if (!used_.count(info.name))
                throw ModelError(file_.path() + ": unexpected tensor '" + info.name +
                                 "' (not part of a GPT-2 model with this config.json)");
    }

    const std::string& path() const { return file_.path(); }

private:
    // lm_head sits beside the "transformer." module in GPT2LMHeadModel, so it never has the prefix.
    std::string fullName(const std::string& name) const {
        return name == "lm_head.weight" ? name : prefix_ + name;
    }

    const WeightFiles& file_;
    std::string prefix_;
    std::set<std::string> used_;
};

} // namespace

ModelConfig gpt2Config(const std::string& text, const std::string& source) {
    return gpt2ConfigFromParsed(parseJsonObject(text, source), source);
}

ModelConfig gpt2ConfigFromParsed(const json& j, const std::string& source) {
    const Gpt2Keys keys(j, source);
    if (keys.string("model_type", "gpt2") != "gpt2")
        keys.fail("'model_type' is \"" + keys.string("model_type", "") + "\", not \"gpt2\"");

    keys.requireFlag("scale_attn_weights", true, "attention scores without the 1/sqrt(head size) scale");
    keys.requireFlag("scale_attn_by_inverse_layer_idx", false, "scores further divided by the layer number");
    keys.requireFlag("add_cross_attention", false, "cross-attention to an encoder in every block");
    keys.requireFlag("tie_word_embeddings", true, "an output projection of its own instead of wte");
    // reorder_and_upcast_attn only changes the order and precision of the score computation (for mixed
    // precision training); in float32 it is the same maths, so it is accepted. Dropout, initialisation,
    // sequence-summary and generation keys play no part in a forward pass at inference and are ignored.

    ModelConfig c;
    c.architecture = Architecture::DecoderOnly;
    c.dModel = keys.integer("n_embd", kEmbd, 65536);
    c.decoderLayers = keys.integer("n_layer", kLayers, 256);
    c.heads = keys.integer("n_head", kHeads, 1024);
    if (c.dModel % c.heads != 0)
        keys.fail("'n_embd' " + std::to_string(c.dModel) + " is not divisible by 'n_head' " +
                  std::to_string(c.heads));
    c.dFf = keys.integer("n_inner", 4 * c.dModel, 1 << 20); // null means 4·n_embd, as in GPT2MLP
    c.tgtVocabSize = keys.integer("vocab_size", kVocab, 1 << 24);
    c.srcVocabSize = c.tgtVocabSize;
    c.maxLen = keys.integer("n_positions", kPositions, 1 << 20);
    c.normEps = keys.number("layer_norm_epsilon", kEps);
    if (!(c.normEps > 0.0 && c.normEps < 1.0))
        keys.fail("'layer_norm_epsilon' must be in (0, 1)");
    c.activation = gpt2Activation(keys.string("activation_function", "gelu_new"), keys);
    c.positional = PositionalEncoding::Learned;
    c.layerNorm = LayerNormKind::Standard;
    c.scaleEmbeddings = false;
    c.tieOutput = true;
    c.tokenizer = TokenizerKind::ByteBpe;
    c.srcVocabFile = c.tgtVocabFile = "vocab.json";
    c.mergesFile = "merges.txt";
    c.name = modelName(keys.string("_name_or_path", ""), source);
    c.validate(source);
    return c;
}

void loadGpt2Weights(nn::TransformerImpl& net, const WeightFiles& file) {
    const auto& c = net.config();
    if (c.hasEncoder() || c.positional != PositionalEncoding::Learned || !c.tieOutput)
        throw std::invalid_argument("loadGpt2Weights needs a net built from gpt2Config()");
    torch::NoGradGuard noGrad;
    const int64_t C = c.dModel, F = c.dFf, V = c.tgtVocabSize, P = c.maxLen;
    auto params = net.named_parameters(/*recurse=*/true);
    std::set<std::string> assigned;
    auto set = [&](const std::string& ours, const torch::Tensor& value) {
        params[ours].copy_(value);
        assigned.insert(ours);
    };
    Gpt2Tensors in(file);

    const auto wte = in.take("wte.weight", {V, C});
    set("tgt_embed.0.lut.weight", wte);
    set("tgt_embed.1.weight", in.take("wpe.weight", {P, C}));
    for (int i = 0; i < c.decoderLayers; ++i) {
        const auto h = "h." + std::to_string(i) + ".";
        const auto ours = "decoder.layers." + std::to_string(i) + ".";
        set(ours + "sublayer.0.norm.a_2", in.take(h + "ln_1.weight", {C}));
        set(ours + "sublayer.0.norm.b_2", in.take(h + "ln_1.bias", {C}));
        set(ours + "sublayer.1.norm.a_2", in.take(h + "ln_2.weight", {C}));
        set(ours + "sublayer.1.norm.b_2", in.take(h + "ln_2.bias", {C}));
        // Conv1D keeps its weight as (in, out), the transpose of a Linear's (out, in); c_attn's outputs are
        // q, k and v side by side.
        const auto qkvW = in.take(h + "attn.c_attn.weight", {C, 3 * C}).t(); // (3C, C)
        const auto qkvB = in.take(h + "attn.c_attn.bias", {3 * C});          // (3C)
        for (int p = 0; p < 3; ++p) {
            const auto lin = ours + "self_attn.linears." + std::to_string(p);
            set(lin + ".weight", qkvW.narrow(0, p * C, C)); // (C, C)
            set(lin + ".bias", qkvB.narrow(0, p * C, C));   // (C)
        }
        set(ours + "self_attn.linears.3.weight", in.take(h + "attn.c_proj.weight", {C, C}).t()); // (C, C)
        set(ours + "self_attn.linears.3.bias", in.take(h + "attn.c_proj.bias", {C}));
        set(ours + "feed_forward.w_1.weight", in.take(h + "mlp.c_fc.weight", {C, F}).t()); // (F, C)
        set(ours + "feed_forward.w_1.bias", in.take(h + "mlp.c_fc.bias", {F}));
        set(ours + "feed_forward.w_2.weight", in.take(h + "mlp.c_proj.weight", {F, C}).t()); // (C, F)
        set(ours + "feed_forward.w_2.bias", in.take(h + "mlp.c_proj.bias", {C}));
        // The causal mask and its fill value, saved as buffers by older transformers versions; the mask is
        // built here from the sequence.
        in.skip(h + "attn.bias");
        in.skip(h + "attn.masked_bias");
    }
    set("decoder.norm.a_2", in.take("ln_f.weight", {C}));
    set("decoder.norm.b_2", in.take("ln_f.bias", {C}));
    if (const auto* lm = in.find("lm_head.weight"))
        if (!torch::equal(in.read(*lm, {V, C}), wte))
            throw ModelError(in.path() +
                             ": tensor 'lm_head.weight' differs from 'wte.weight'; attnscope runs "
                             "GPT-2 with its output projection tied to the token embeddings");
    in.refuseLeftovers();
    if (assigned.size() != params.size())
        throw std::logic_error("loadGpt2Weights left parameters of the net unset");
}

} // namespace core
