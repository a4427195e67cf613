#include "core/model/Gpt2Checkpoint.h"

#include "core/base/Errors.h"
#include "core/base/JsonText.h"
#include "core/model/HfConfigKeys.h"
#include "core/model/HfTensors.h"
#include "core/model/WeightFiles.h"
#include "core/model/nn/Transformer.h"

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <set>
#include <stdexcept>

// Shapes: C n_embd, F n_inner, V vocab_size, P n_positions.

namespace core {

using nlohmann::json;

namespace {

// GPT2Config's defaults, used for keys a config.json leaves out (as transformers does).
constexpr int kVocab = 50257, kPositions = 1024, kEmbd = 768, kLayers = 12, kHeads = 12;
constexpr double kEps = 1e-5;

} // namespace

ModelConfig gpt2Config(const std::string& text, const std::string& source) {
    return gpt2ConfigFromParsed(parseJsonObject(text, source), source);
}

ModelConfig gpt2ConfigFromParsed(const json& j, const std::string& source) {
    const HfConfigKeys keys(j, source, "GPT-2");
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
    c.activation = keys.activation("activation_function", "gelu_new");
    c.positional = PositionalEncoding::Learned;
    c.layerNorm = LayerNormKind::Standard;
    c.scaleEmbeddings = false;
    c.tieOutput = true;
    c.tokenizer = TokenizerKind::ByteBpe;
    c.srcVocabFile = c.tgtVocabFile = "vocab.json";
    c.mergesFile = "merges.txt";
    c.name = keys.modelName("gpt2");
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
    // GPT2LMHeadModel saves the base model under "transformer."; GPT2Model without it.
    HfTensors in(file, file.find("transformer.wte.weight") ? "transformer." : "", "GPT-2");

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
