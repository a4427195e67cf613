#include "core/model/BertCheckpoint.h"

#include "core/base/Errors.h"
#include "core/model/HfConfigKeys.h"
#include "core/model/HfTensors.h"
#include "core/model/WeightFiles.h"
#include "core/model/nn/Transformer.h"

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <set>
#include <stdexcept>

// Shapes: C hidden_size, F intermediate_size, V vocab_size, P positions read (max_len).

namespace core {

using nlohmann::json;

namespace {

enum class Layout { Bert, Roberta, DistilBert }; // the module names, which differ across the three

// The defaults of transformers' BertConfig, RobertaConfig (and its XLM-RoBERTa and CamemBERT copies) and
// DistilBertConfig, for keys a config.json leaves out.
struct FamilyDefaults {
    const char* type;
    const char* name;   // in messages
    const char* prefix; // the base model's name inside the *ForMaskedLM classes
    Layout layout;
    int vocab, pad;
};
constexpr FamilyDefaults kFamilies[] = {
    {"bert", "BERT", "bert.", Layout::Bert, 30522, 0},
    {"roberta", "RoBERTa", "roberta.", Layout::Roberta, 50265, 1},
    {"xlm-roberta", "XLM-RoBERTa", "roberta.", Layout::Roberta, 30522, 1},
    {"camembert", "CamemBERT", "roberta.", Layout::Roberta, 30522, 1},
    {"distilbert", "DistilBERT", "distilbert.", Layout::DistilBert, 30522, 0},
};

const FamilyDefaults& familyOf(const json& j, const std::string& source) {
    const auto type = j.contains("model_type") && j["model_type"].is_string()
                          ? j["model_type"].get<std::string>()
                          : std::string();
    for (const auto& f : kFamilies)
        if (type == f.type)
            return f;
    throw ConfigError(source + ": 'model_type' is \"" + type +
                      "\", not one of bert, roberta, xlm-roberta, camembert, distilbert");
}

// Where the base model's tensors start: under the *ForMaskedLM prefix, or at the top for a bare model.
std::string basePrefix(const WeightFiles& files, const FamilyDefaults& f) {
    return files.find(std::string(f.prefix) + "embeddings.word_embeddings.weight") ? f.prefix : "";
}

// Each layout's names: a layer's (after its prefix) and the masked-LM head's (beside the base model).
struct Names {
    const char* layer;   // "encoder.layer." + i + "."
    const char* proj[4]; // q, k, v, out under the layer
    const char *attentionNorm, *ffIn, *ffOut, *outputNorm;
    const char *dense, *headNorm, *decoder; // the head: dense, norm, and the tied table's module
    const char* bias;                       // where the output bias is saved first
};
constexpr Names kBertNames = {
    "encoder.layer.",
    {"attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense"},
    "attention.output.LayerNorm",
    "intermediate.dense",
    "output.dense",
    "output.LayerNorm",
    "cls.predictions.transform.dense",
    "cls.predictions.transform.LayerNorm",
    "cls.predictions.decoder",
    "cls.predictions.bias"};
constexpr Names kRobertaNames = {
    "encoder.layer.",
    {"attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense"},
    "attention.output.LayerNorm",
    "intermediate.dense",
    "output.dense",
    "output.LayerNorm",
    "lm_head.dense",
    "lm_head.layer_norm",
    "lm_head.decoder",
    "lm_head.bias"};
constexpr Names kDistilNames = {
    "transformer.layer.", {"attention.q_lin", "attention.k_lin", "attention.v_lin", "attention.out_lin"},
    "sa_layer_norm",      "ffn.lin1",
    "ffn.lin2",           "output_layer_norm",
    "vocab_transform",    "vocab_layer_norm",
    "vocab_projector",    "vocab_projector.bias"};

const Names& namesOf(Layout layout) {
    return layout == Layout::Bert ? kBertNames : layout == Layout::Roberta ? kRobertaNames : kDistilNames;
}

} // namespace

bool isBertFamily(const std::string& modelType) {
    for (const auto& f : kFamilies)
        if (modelType == f.type)
            return true;
    return false;
}

ModelConfig bertConfigFromParsed(const json& j, const std::string& source) {
    const auto& family = familyOf(j, source);
    const HfConfigKeys keys(j, source, family.name);
    const bool distil = family.layout == Layout::DistilBert;

    ModelConfig c;
    c.architecture = Architecture::EncoderOnly;
    c.decoderLayers = 0;
    c.dModel = keys.integer(distil ? "dim" : "hidden_size", 768, 65536);
    c.encoderLayers = keys.integer(distil ? "n_layers" : "num_hidden_layers", distil ? 6 : 12, 256);
    c.heads = keys.integer(distil ? "n_heads" : "num_attention_heads", 12, 1024);
    if (c.dModel % c.heads != 0)
        keys.fail("the hidden size " + std::to_string(c.dModel) + " is not divisible by the " +
                  std::to_string(c.heads) + " attention heads");
    c.dFf = keys.integer(distil ? "hidden_dim" : "intermediate_size", 3072, 1 << 20);
    c.srcVocabSize = c.tgtVocabSize = keys.integer("vocab_size", family.vocab, 1 << 24);
    c.activation = keys.activation(distil ? "activation" : "hidden_act", "gelu");
    // DistilBERT's norms are nn.LayerNorm(eps=1e-12) whatever its config says.
    c.normEps = distil ? 1e-12 : keys.number("layer_norm_eps", 1e-12);
    if (!(c.normEps > 0.0 && c.normEps < 1.0))
        keys.fail("'layer_norm_eps' must be in (0, 1)");
    const int positions = keys.integer("max_position_embeddings", 512, 1 << 20);
    // RoBERTa numbers its positions from padding_idx + 1: the rows before are never read.
    const int offset =
        family.layout == Layout::Roberta ? keys.integer("pad_token_id", family.pad, 1 << 24) + 1 : 0;
    if (positions <= offset)
        keys.fail("'max_position_embeddings' " + std::to_string(positions) +
                  " leaves no position after the padding id's " + std::to_string(offset));
    c.maxLen = positions - offset;
    if (!distil) {
        const auto kind = keys.string("position_embedding_type", "absolute");
        if (kind != "absolute")
            keys.fail("'position_embedding_type' is \"" + kind +
                      "\"; attnscope implements the absolute (learned) positions only");
        keys.requireFlag("is_decoder", false, "a causal decoder");
        keys.requireFlag("add_cross_attention", false, "cross-attention to an encoder in every block");
        keys.integer("type_vocab_size", 2, 1 << 16); // checked; only type 0 is read
    }
    c.positional = PositionalEncoding::Learned;
    c.layerNorm = LayerNormKind::Standard;
    c.postNorm = true;
    c.embeddingNorm = true;
    c.scaleEmbeddings = false;
    c.tieOutput = true;
    c.tiedOutputBias = true;
    c.maskedLmHead = false;
    c.tokenizer = TokenizerKind::HfJson;
    c.srcVocabFile = c.tgtVocabFile = "tokenizer.json";
    c.name = keys.modelName(family.type);
    c.validate(source);
    return c;
}

bool bertHasMaskedLmHead(const WeightFiles& files, const json& config) {
    return files.find(std::string(namesOf(familyOf(config, files.path()).layout).dense) + ".weight") !=
           nullptr;
}

void loadBertWeights(nn::TransformerImpl& net, const WeightFiles& files, const json& config) {
    const auto& c = net.config();
    const auto& family = familyOf(config, files.path());
    if (c.hasDecoder() || !c.postNorm || c.positional != PositionalEncoding::Learned)
        throw std::invalid_argument("loadBertWeights needs a net built from bertConfigFromParsed()");
    torch::NoGradGuard noGrad;
    const int64_t C = c.dModel, F = c.dFf, V = c.srcVocabSize, P = c.maxLen;
    auto params = net.named_parameters(/*recurse=*/true);
    std::set<std::string> assigned;
    auto set = [&](const std::string& ours, const torch::Tensor& value) {
        params[ours].copy_(value);
        assigned.insert(ours);
    };
    const auto layout = family.layout;
    const bool distil = layout == Layout::DistilBert;
    HfTensors in(files, basePrefix(files, family), family.name,
                 {"cls.", "lm_head.", "vocab_transform.", "vocab_layer_norm.", "vocab_projector.",
                  "classifier.", "pre_classifier.", "qa_outputs."});
    // A norm's gain and bias: "weight"/"bias", or "gamma"/"beta" in checkpoints converted from the original
    // TensorFlow release (bert-base-uncased's own).
    auto norm = [&](const std::string& ours, const std::string& theirs) {
        const bool old = !in.find(theirs + ".weight") && in.find(theirs + ".gamma");
        set(ours + ".a_2", in.take(theirs + (old ? ".gamma" : ".weight"), {C}));
        set(ours + ".b_2", in.take(theirs + (old ? ".beta" : ".bias"), {C}));
    };
    auto linear = [&](const std::string& ours, const std::string& theirs, int64_t rows, int64_t cols) {
        set(ours + ".weight", in.take(theirs + ".weight", {rows, cols}));
        set(ours + ".bias", in.take(theirs + ".bias", {rows}));
    };

    const auto words = in.take("embeddings.word_embeddings.weight", {V, C});
    set("src_embed.0.lut.weight", words);
    const HfConfigKeys keys(config, files.path(), family.name);
    const int64_t offset =
        layout == Layout::Roberta ? keys.integer("pad_token_id", family.pad, 1 << 24) + 1 : 0;
    auto positions =
        in.take("embeddings.position_embeddings.weight", {P + offset, C}).narrow(0, offset, P); // (P, C)
    if (!distil) {
        // A typed text is one segment, of type 0: its embedding is added at every position.
        const int64_t types = keys.integer("type_vocab_size", 2, 1 << 16);
        positions = positions + in.take("embeddings.token_type_embeddings.weight", {types, C})[0]; // (P, C)
        in.skip("embeddings.token_type_ids");
    }
    in.skip("embeddings.position_ids");
    set("src_embed.1.weight", positions);
    norm("src_embed.2", "embeddings.LayerNorm");

    const auto& names = namesOf(layout);
    for (int i = 0; i < c.encoderLayers; ++i) {
        const auto ours = "encoder.layers." + std::to_string(i) + ".";
        const auto h = names.layer + std::to_string(i) + ".";
        for (int p = 0; p < 4; ++p)
            linear(ours + "self_attn.linears." + std::to_string(p), h + names.proj[p], C, C);
        norm(ours + "sublayer.0.norm", h + names.attentionNorm);
        linear(ours + "feed_forward.w_1", h + names.ffIn, F, C);
        linear(ours + "feed_forward.w_2", h + names.ffOut, C, F);
        norm(ours + "sublayer.1.norm", h + names.outputNorm);
    }

    if (c.maskedLmHead) {
        // RobertaLMHead applies the erf GELU whatever hidden_act says; ours applies the config's activation.
        if (layout == Layout::Roberta && c.activation != Activation::Gelu)
            throw ModelError(in.path() + ": a " + family.name +
                             " masked-LM head with 'hidden_act' other than gelu: transformers' head applies "
                             "gelu regardless, which attnscope does not implement");
        linear("generator.dense", names.dense, C, C);
        norm("generator.norm", names.headNorm);
        // The output bias is saved under the head ("cls.predictions.bias", "lm_head.bias") and again as the
        // decoder's; DistilBERT's only as vocab_projector.bias.
        const std::string decoder = names.decoder, bias = names.bias;
        const auto b = in.find(bias) ? in.take(bias, {V}) : in.take(decoder + ".bias", {V});
        set("generator.bias", b);
        if (const auto* again = in.find(decoder + ".bias"); again && again->name != bias)
            if (!torch::equal(in.read(*again, {V}), b))
                throw ModelError(in.path() + ": tensor '" + again->name + "' differs from '" + bias + "'");
        // The decoder reads the token table; a checkpoint that saved it anyway must hold the same.
        if (const auto* w = in.find(decoder + ".weight"))
            if (!torch::equal(in.read(*w, {V, C}), words))
                throw ModelError(in.path() + ": tensor '" + w->name +
                                 "' differs from the word embeddings; attnscope runs the masked-LM head tied "
                                 "to them, as transformers does");
    }
    // Parts that play no role in the encoder's attention or the masked-LM head.
    for (const char* skipped :
         {"pooler.dense.weight", "pooler.dense.bias", "cls.seq_relationship.weight",
          "cls.seq_relationship.bias", "classifier.weight", "classifier.bias", "classifier.dense.weight",
          "classifier.dense.bias", "classifier.out_proj.weight", "classifier.out_proj.bias",
          "pre_classifier.weight", "pre_classifier.bias", "qa_outputs.weight", "qa_outputs.bias"})
        in.skip(skipped);
    in.refuseLeftovers();
    if (assigned.size() != params.size())
        throw std::logic_error("loadBertWeights left parameters of the net unset");
}

} // namespace core
