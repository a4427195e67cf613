#include "core/model/LlamaCheckpoint.h"

#include "core/base/Errors.h"
#include "core/model/HfConfigKeys.h"
#include "core/model/HfTensors.h"
#include "core/model/nn/Transformer.h"

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <set>
#include <stdexcept>

// Shapes: C hidden_size, F intermediate_size, V vocab_size, KV num_key_value_heads · head size.

namespace core {

using nlohmann::json;

namespace {

// The defaults of transformers' LlamaConfig, MistralConfig and Qwen2Config, for keys a config.json leaves
// out.
struct FamilyDefaults {
    const char* type;
    const char* name; // in messages
    int vocab, hidden, intermediate, layers, heads, kvHeads, positions;
    bool qkvBias; // Qwen2's q, k and v always have biases; Llama's follow attention_bias
    bool window;  // Mistral attends within sliding_window
};
constexpr FamilyDefaults kFamilies[] = {
    {"llama", "Llama", 32000, 4096, 11008, 32, 32, 0, 2048, false, false},
    {"mistral", "Mistral", 32000, 4096, 14336, 32, 32, 8, 4096 * 32, false, true},
    {"qwen2", "Qwen2", 151936, 4096, 22016, 32, 32, 32, 32768, true, false},
};

const FamilyDefaults* familyOf(const std::string& type) {
    for (const auto& f : kFamilies)
        if (type == f.type)
            return &f;
    return nullptr;
}

} // namespace

bool isLlamaFamily(const std::string& modelType) {
    return familyOf(modelType) != nullptr;
}

ModelConfig llamaConfigFromParsed(const json& j, const std::string& source) {
    const auto type = j.contains("model_type") && j["model_type"].is_string()
                          ? j["model_type"].get<std::string>()
                          : std::string();
    const auto* family = familyOf(type);
    if (!family)
        throw ConfigError(source + ": 'model_type' is \"" + type + "\", not one of llama, mistral, qwen2");
    const HfConfigKeys keys(j, source, family->name);

    ModelConfig c;
    c.architecture = Architecture::DecoderOnly;
    c.dModel = keys.integer("hidden_size", family->hidden, 65536);
    c.decoderLayers = keys.integer("num_hidden_layers", family->layers, 256);
    c.heads = keys.integer("num_attention_heads", family->heads, 1024);
    // A key left out takes the class's default; null means one key/value head per query head.
    const bool kvNull = j.contains("num_key_value_heads") && j["num_key_value_heads"].is_null();
    c.kvHeads = kvNull
                    ? c.heads
                    : keys.integer("num_key_value_heads", family->kvHeads ? family->kvHeads : c.heads, 1024);
    if (c.dModel % c.heads != 0)
        keys.fail("'hidden_size' " + std::to_string(c.dModel) +
                  " is not divisible by 'num_attention_heads' " + std::to_string(c.heads));
    if (c.heads % c.kvHeads != 0)
        keys.fail("'num_attention_heads' " + std::to_string(c.heads) + " is not divisible by " +
                  "'num_key_value_heads' " + std::to_string(c.kvHeads));
    if (keys.has("head_dim") && keys.integer("head_dim", 0, 65536) != c.dModel / c.heads)
        keys.fail("'head_dim' " + std::to_string(keys.integer("head_dim", 0, 65536)) +
                  " differs from hidden_size / num_attention_heads (" + std::to_string(c.dModel / c.heads) +
                  "); attnscope needs heads that together span hidden_size");
    c.dFf = keys.integer("intermediate_size", family->intermediate, 1 << 20);
    c.tgtVocabSize = c.srcVocabSize = keys.integer("vocab_size", family->vocab, 1 << 24);
    c.maxLen = keys.integer("max_position_embeddings", family->positions, 1 << 20);
    // Within the window Mistral's attention is plain causal attention; past it, keys fall out. Capping the
    // length at the window keeps every input attnscope takes one where the two agree. MistralConfig's default
    // window is 4096; null switches it off.
    if (family->window && !(j.contains("sliding_window") && j["sliding_window"].is_null())) {
        c.slidingWindow = keys.integer("sliding_window", 4096, 1 << 24);
        c.maxLen = std::min(c.maxLen, c.slidingWindow);
    }
    if (type == "qwen2" && keys.flag("use_sliding_window", false))
        keys.fail(
            "'use_sliding_window': true (attention cut to a window in the upper layers) is not supported");
    c.normEps = keys.number("rms_norm_eps", 1e-6);
    if (!(c.normEps > 0.0 && c.normEps < 1.0))
        keys.fail("'rms_norm_eps' must be in (0, 1)");
    const auto act = keys.string("hidden_act", "silu");
    if (act != "silu" && act != "swish")
        keys.fail("'hidden_act' is \"" + act + "\"; attnscope implements the family's silu");
    c.activation = Activation::Silu;
    c.gatedFeedForward = true;
    c.layerNorm = LayerNormKind::Rms;
    c.positional = PositionalEncoding::Rope;
    c.ropeStyle = RopeStyle::Halves;
    // Newer transformers versions write the rotation's settings into one "rope_parameters" object.
    const auto& rope = keys.raw("rope_parameters");
    if (!rope.is_null() && !rope.is_object())
        keys.fail("'rope_parameters' must be an object");
    const HfConfigKeys ropeKeys(rope.is_object() ? rope : j, source, family->name);
    c.ropeBase = ropeKeys.number("rope_theta", 10000.0);
    c.ropeScaling = RopeScaling::fromJson(rope.is_object() ? rope : keys.raw("rope_scaling"), source);
    if (keys.number("partial_rotary_factor", 1.0) != 1.0 ||
        ropeKeys.number("partial_rotary_factor", 1.0) != 1.0)
        keys.fail("'partial_rotary_factor' below 1 (rotation of part of each head) is not supported");
    const bool attentionBias = keys.flag("attention_bias", false);
    c.qkvBias = family->qkvBias || attentionBias;
    // One switch covers o_proj and the MLP here; where only one of them has biases, the other's are zeros.
    c.linearBias = attentionBias || keys.flag("mlp_bias", false);
    c.tieOutput = keys.flag("tie_word_embeddings", false);
    c.outputBias = false;
    c.scaleEmbeddings = false;
    c.tokenizer = TokenizerKind::ByteBpe;
    c.srcVocabFile = c.tgtVocabFile = "vocab.json";
    c.mergesFile = "merges.txt";
    c.name = keys.modelName(type);
    c.validate(source);
    return c;
}

void loadLlamaWeights(nn::TransformerImpl& net, const WeightFiles& files, const json& config) {
    const auto& c = net.config();
    const HfConfigKeys typeKey(config, files.path(), "Llama");
    const auto family = typeKey.string("model_type", "");
    const HfConfigKeys keys(config, files.path(), family);
    const bool attentionBias = keys.flag("attention_bias", false), mlpBias = keys.flag("mlp_bias", false);
    if (c.hasEncoder() || c.layerNorm != LayerNormKind::Rms || !c.gatedFeedForward)
        throw std::invalid_argument("loadLlamaWeights needs a net built from llamaConfigFromParsed()");
    torch::NoGradGuard noGrad;
    const int64_t C = c.dModel, F = c.dFf, V = c.tgtVocabSize, KV = int64_t{c.keyValueHeads()} * c.headDim();
    auto params = net.named_parameters(/*recurse=*/true);
    std::set<std::string> assigned;
    auto set = [&](const std::string& ours, const torch::Tensor& value) {
        params[ours].copy_(value);
        assigned.insert(ours);
    };
    // LlamaForCausalLM saves the base model under "model."; LlamaModel without it (and without lm_head).
    const auto* known = familyOf(family);
    HfTensors in(files, files.find("model.embed_tokens.weight") ? "model." : "",
                 known ? known->name : family);
    // Biases the config says the checkpoint has are taken; one our block has only because one switch covers
    // o_proj and the MLP here (o_proj's when only mlp_bias is set, say) is zero.
    auto bias = [&](const std::string& ours, const std::string& theirs, int64_t n, bool stored) {
        if (stored)
            set(ours, in.take(theirs, {n}));
        else if (params.contains(ours))
            set(ours, torch::zeros({n}));
    };

    const auto embed = in.take("embed_tokens.weight", {V, C});
    set("tgt_embed.0.lut.weight", embed);
    for (int i = 0; i < c.decoderLayers; ++i) {
        const auto h = "layers." + std::to_string(i) + ".";
        const auto ours = "decoder.layers." + std::to_string(i) + ".";
        set(ours + "sublayer.0.norm.a_2", in.take(h + "input_layernorm.weight", {C}));
        set(ours + "sublayer.1.norm.a_2", in.take(h + "post_attention_layernorm.weight", {C}));
        const char* proj[] = {"q_proj", "k_proj", "v_proj", "o_proj"};
        for (int p = 0; p < 4; ++p) {
            const auto theirs = h + "self_attn." + proj[p];
            const auto lin = ours + "self_attn.linears." + std::to_string(p);
            const int64_t rows = p == 1 || p == 2 ? KV : C;
            set(lin + ".weight", in.take(theirs + ".weight", {rows, C})); // (C|KV, C)
            bias(lin + ".bias", theirs + ".bias", rows, p < 3 ? c.qkvBias : attentionBias);
        }
        in.skip(h + "self_attn.rotary_emb.inv_freq"); // computed from rope_theta here
        const std::pair<const char*, const char*> mlp[] = {{"gate_proj", "w_1"}, {"up_proj", "w_3"}};
        for (const auto& [theirs, w] : mlp) {
            set(ours + "feed_forward." + w + ".weight", in.take(h + "mlp." + theirs + ".weight", {F, C}));
            bias(ours + "feed_forward." + w + ".bias", h + "mlp." + theirs + ".bias", F, mlpBias);
        }
        set(ours + "feed_forward.w_2.weight", in.take(h + "mlp.down_proj.weight", {C, F}));
        bias(ours + "feed_forward.w_2.bias", h + "mlp.down_proj.bias", C, mlpBias);
    }
    set("decoder.norm.a_2", in.take("norm.weight", {C}));
    if (!c.tieOutput)
        set("generator.proj.weight", in.take("lm_head.weight", {V, C}));
    else if (const auto* lm = in.find("lm_head.weight"))
        if (!torch::equal(in.read(*lm, {V, C}), embed))
            throw ModelError(in.path() +
                             ": tensor 'lm_head.weight' differs from 'embed_tokens.weight' although "
                             "config.json says tie_word_embeddings: true");
    in.refuseLeftovers();
    if (assigned.size() != params.size())
        throw std::logic_error("loadLlamaWeights left parameters of the net unset");
}

} // namespace core
