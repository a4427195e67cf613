// config.json for ModelConfig: the field names, the enum spellings, and the family checks of parsing.

#include "core/model/ModelConfig.h"

#include "core/base/ConfigFields.h"
#include "core/base/Errors.h"
#include "core/base/Files.h"
#include "core/base/JsonText.h"

#include <nlohmann/json.hpp>

#include <set>

namespace core {

using nlohmann::json;

namespace {

template <typename Enum, std::size_t N>
Enum parseEnum(const json& j, const char* key, const std::pair<const char*, Enum> (&names)[N],
               const std::string& source) {
    if (!j.is_string())
        throw ConfigError(source + ": field '" + key + "' must be a string");
    const auto s = j.get<std::string>();
    std::string allowed;
    for (const auto& [name, value] : names) {
        if (s == name)
            return value;
        allowed += (allowed.empty() ? "" : ", ") + std::string(name);
    }
    throw ConfigError(source + ": field '" + key + "' is \"" + s + "\"; expected one of " + allowed);
}

const std::pair<const char*, Family> kFamily[] = {{"transformer", Family::Transformer},
                                                  {"attention_classifier", Family::AttentionClassifier},
                                                  {"gru_attention", Family::GruAttention}};
const std::pair<const char*, RecurrentScore> kScore[] = {{"concat", RecurrentScore::Concat},
                                                         {"additive", RecurrentScore::Additive}};
const std::pair<const char*, Architecture> kArch[] = {{"encoder_decoder", Architecture::EncoderDecoder},
                                                      {"decoder_only", Architecture::DecoderOnly},
                                                      {"encoder_only", Architecture::EncoderOnly}};
const std::pair<const char*, PositionalEncoding> kPos[] = {{"sinusoidal", PositionalEncoding::Sinusoidal},
                                                           {"learned", PositionalEncoding::Learned},
                                                           {"rope", PositionalEncoding::Rope},
                                                           {"none", PositionalEncoding::None}};
const std::pair<const char*, LayerNormKind> kNorm[] = {
    {"seed", LayerNormKind::Seed}, {"standard", LayerNormKind::Standard}, {"rms", LayerNormKind::Rms}};
const std::pair<const char*, Activation> kAct[] = {{"relu", Activation::Relu},
                                                   {"gelu", Activation::Gelu},
                                                   {"gelu_tanh", Activation::GeluTanh},
                                                   {"silu", Activation::Silu}};
const std::pair<const char*, RopeStyle> kRopeStyle[] = {{"interleaved", RopeStyle::Interleaved},
                                                        {"halves", RopeStyle::Halves}};
const std::pair<const char*, TokenizerKind> kTok[] = {{"char", TokenizerKind::Char},
                                                      {"word", TokenizerKind::Word},
                                                      {"sentencepiece", TokenizerKind::SentencePiece},
                                                      {"byte_bpe", TokenizerKind::ByteBpe},
                                                      {"tokenizer_json", TokenizerKind::HfJson},
                                                      {"marian", TokenizerKind::Marian}};

template <typename Enum, std::size_t N>
const char* enumName(Enum v, const std::pair<const char*, Enum> (&names)[N]) {
    for (const auto& [name, value] : names)
        if (value == v)
            return name;
    return "?";
}

// Fields that describe one family only: given for another, they would be ignored, and a config that says
// more than the model is refused like a misspelt field.
const std::set<std::string> kTransformerFields = {"architecture",
                                                  "encoder_layers",
                                                  "decoder_layers",
                                                  "d_model",
                                                  "heads",
                                                  "d_ff",
                                                  "layer_norm",
                                                  "norm_eps",
                                                  "activation",
                                                  "scale_embeddings",
                                                  "positional_encoding",
                                                  "sinusoid_halves",
                                                  "rope_base",
                                                  "rope_style",
                                                  "rope_scaling",
                                                  "kv_heads",
                                                  "sliding_window",
                                                  "gated_feed_forward",
                                                  "qkv_bias",
                                                  "linear_bias",
                                                  "output_bias",
                                                  "tied_output_bias",
                                                  "post_norm",
                                                  "embedding_norm",
                                                  "mlm_head",
                                                  "tie_output",
                                                  "share_embeddings"};
const std::set<std::string> kClassifierFields = {"embed_size", "hidden_size", "classes"};
const std::set<std::string> kGruFields = {"hidden_size", "attention_score"};

void checkFamilyFields(const ModelConfig& c, const std::set<std::string>& given, const std::string& source) {
    const auto& own = c.family == Family::AttentionClassifier ? kClassifierFields
                      : c.family == Family::GruAttention      ? kGruFields
                                                              : std::set<std::string>{};
    for (const auto& key : given) {
        const bool familyField =
            kTransformerFields.count(key) + kClassifierFields.count(key) + kGruFields.count(key) > 0;
        const bool applies = c.recurrent() ? own.count(key) > 0 || !familyField
                                           : kClassifierFields.count(key) + kGruFields.count(key) == 0;
        if (!applies)
            throw ConfigError(source + ": field '" + key + "' does not apply to the " + toString(c.family) +
                              " family");
    }
    if (c.family == Family::AttentionClassifier && given.count("tgt_vocab_size"))
        throw ConfigError(source + ": field 'tgt_vocab_size' does not apply to the attention_classifier "
                                   "family: its outputs are the 'classes'");
}

// A recurrent model's attention is one layer of one head over states of its hidden width: the Transformer's
// fields are set to say so, for code that sizes things by them, and a classifier's target side is its
// classes after the four special tokens.
void shapeRecurrent(ModelConfig& c) {
    if (!c.recurrent())
        return;
    c.architecture = Architecture::EncoderDecoder;
    c.encoderLayers = c.decoderLayers = 1;
    c.heads = 1;
    c.dModel = c.family == Family::AttentionClassifier ? 2 * c.hiddenSize : c.hiddenSize;
    c.dFf = c.dModel;
    c.positional = PositionalEncoding::None;
    c.shareEmbeddings = c.tieOutput = false;
    if (c.family == Family::AttentionClassifier)
        c.tgtVocabSize = static_cast<int>(c.classes.size()) + 4;
}

void parseTokenizer(const json& t, ModelConfig& c, const std::string& source) {
    if (!t.is_object())
        throw ConfigError(source + ": field 'tokenizer' must be an object");
    for (const auto& [key, v] : t.items()) {
        if (key == "type")
            c.tokenizer = parseEnum(v, "tokenizer.type", kTok, source);
        else if (key == "src_vocab")
            c.srcVocabFile = configString(v, "tokenizer.src_vocab", source);
        else if (key == "tgt_vocab")
            c.tgtVocabFile = configString(v, "tokenizer.tgt_vocab", source);
        else if (key == "lowercase")
            c.lowercase = configBool(v, "tokenizer.lowercase", source);
        else if (key == "merges")
            c.mergesFile = configString(v, "tokenizer.merges", source);
        else
            throw ConfigError(source + ": unknown field 'tokenizer." + key + "'");
    }
}

} // namespace

const char* toString(Family v) {
    return enumName(v, kFamily);
}
const char* toString(RecurrentScore v) {
    return enumName(v, kScore);
}
const char* toString(Architecture v) {
    return enumName(v, kArch);
}
const char* toString(PositionalEncoding v) {
    return enumName(v, kPos);
}
const char* toString(LayerNormKind v) {
    return enumName(v, kNorm);
}
const char* toString(Activation v) {
    return enumName(v, kAct);
}
const char* toString(TokenizerKind v) {
    return enumName(v, kTok);
}
const char* toString(RopeStyle v) {
    return enumName(v, kRopeStyle);
}

ModelConfig ModelConfig::fromJson(const std::string& text, const std::string& source) {
    return fromParsed(parseJsonObject(text, source), source);
}

ModelConfig ModelConfig::fromParsed(const json& j, const std::string& source) {
    ModelConfig c;
    std::set<std::string> given;
    // Unknown keys are refused: a misspelt field silently falling back to its default
    // would load a different model than the one described.
    for (const auto& [key, v] : j.items()) {
        const char* k = key.c_str();
        given.insert(key);
        if (key == "name")
            c.name = configString(v, k, source);
        else if (key == "description")
            c.description = configString(v, k, source);
        else if (key == "example")
            c.example = configString(v, k, source);
        else if (key == "family")
            c.family = parseEnum(v, k, kFamily, source);
        else if (key == "embed_size")
            c.embedSize = configInt(v, k, source);
        else if (key == "hidden_size")
            c.hiddenSize = configInt(v, k, source);
        else if (key == "classes")
            c.classes = configStrings(v, k, source);
        else if (key == "attention_score")
            c.score = parseEnum(v, k, kScore, source);
        else if (key == "architecture")
            c.architecture = parseEnum(v, k, kArch, source);
        else if (key == "encoder_layers")
            c.encoderLayers = configInt(v, k, source);
        else if (key == "decoder_layers")
            c.decoderLayers = configInt(v, k, source);
        else if (key == "d_model")
            c.dModel = configInt(v, k, source);
        else if (key == "heads")
            c.heads = configInt(v, k, source);
        else if (key == "d_ff")
            c.dFf = configInt(v, k, source);
        else if (key == "src_vocab_size")
            c.srcVocabSize = configInt(v, k, source);
        else if (key == "tgt_vocab_size")
            c.tgtVocabSize = configInt(v, k, source);
        else if (key == "max_len")
            c.maxLen = configInt(v, k, source);
        else if (key == "positional_encoding")
            c.positional = parseEnum(v, k, kPos, source);
        else if (key == "sinusoid_halves")
            c.sinusoidHalves = configBool(v, k, source);
        else if (key == "layer_norm")
            c.layerNorm = parseEnum(v, k, kNorm, source);
        else if (key == "norm_eps")
            c.normEps = configNumber(v, k, source);
        else if (key == "activation")
            c.activation = parseEnum(v, k, kAct, source);
        else if (key == "scale_embeddings")
            c.scaleEmbeddings = configBool(v, k, source);
        else if (key == "share_embeddings")
            c.shareEmbeddings = configBool(v, k, source);
        else if (key == "tie_output")
            c.tieOutput = configBool(v, k, source);
        else if (key == "rope_base")
            c.ropeBase = configNumber(v, k, source);
        else if (key == "rope_style")
            c.ropeStyle = parseEnum(v, k, kRopeStyle, source);
        else if (key == "rope_scaling")
            c.ropeScaling = RopeScaling::fromJson(v, source);
        else if (key == "kv_heads")
            c.kvHeads = configInt(v, k, source);
        else if (key == "sliding_window")
            c.slidingWindow = configInt(v, k, source);
        else if (key == "gated_feed_forward")
            c.gatedFeedForward = configBool(v, k, source);
        else if (key == "qkv_bias")
            c.qkvBias = configBool(v, k, source);
        else if (key == "linear_bias")
            c.linearBias = configBool(v, k, source);
        else if (key == "output_bias")
            c.outputBias = configBool(v, k, source);
        else if (key == "tied_output_bias")
            c.tiedOutputBias = configBool(v, k, source);
        else if (key == "post_norm")
            c.postNorm = configBool(v, k, source);
        else if (key == "embedding_norm")
            c.embeddingNorm = configBool(v, k, source);
        else if (key == "mlm_head")
            c.maskedLmHead = configBool(v, k, source);
        else if (key == "tokenizer")
            parseTokenizer(v, c, source);
        else
            throw ConfigError(source + ": unknown field '" + key + "'");
    }
    checkFamilyFields(c, given, source);
    shapeRecurrent(c);
    if (!c.hasDecoder() && !given.count("decoder_layers"))
        c.decoderLayers = 0; // an encoder-only model has none (validate refuses another number)
    c.validate(source);
    return c;
}

ModelConfig ModelConfig::fromFile(const std::string& path) {
    return fromJson(readFile(path), path);
}

std::string ModelConfig::toJson() const {
    json j;
    j["name"] = name;
    if (!description.empty())
        j["description"] = description;
    if (!example.empty())
        j["example"] = example;
    if (recurrent()) {
        recurrentToJson(j);
        return j.dump(2) + "\n";
    }
    j["architecture"] = toString(architecture);
    if (hasEncoder())
        j["encoder_layers"] = encoderLayers;
    if (hasDecoder())
        j["decoder_layers"] = decoderLayers;
    j["d_model"] = dModel;
    j["heads"] = heads;
    j["d_ff"] = dFf;
    if (hasEncoder())
        j["src_vocab_size"] = srcVocabSize;
    j["tgt_vocab_size"] = tgtVocabSize;
    j["max_len"] = maxLen;
    j["positional_encoding"] = toString(positional);
    if (sinusoidHalves)
        j["sinusoid_halves"] = true;
    j["layer_norm"] = toString(layerNorm);
    j["norm_eps"] = normEps;
    j["activation"] = toString(activation);
    j["scale_embeddings"] = scaleEmbeddings;
    j["share_embeddings"] = shareEmbeddings;
    j["tie_output"] = tieOutput;
    if (positional == PositionalEncoding::Rope) {
        j["rope_base"] = ropeBase;
        j["rope_style"] = toString(ropeStyle);
        if (ropeScaling.kind != RopeScaling::Kind::None)
            j["rope_scaling"] = ropeScaling.toJson();
    }
    // The Llama family's switches, written only where they differ from the seed's Transformer, so the
    // config of a model without them reads as before.
    if (kvHeads > 0)
        j["kv_heads"] = kvHeads;
    if (slidingWindow > 0)
        j["sliding_window"] = slidingWindow;
    if (gatedFeedForward)
        j["gated_feed_forward"] = true;
    if (!qkvBias)
        j["qkv_bias"] = false;
    if (!linearBias)
        j["linear_bias"] = false;
    if (!outputBias)
        j["output_bias"] = false;
    // The BERT family's and Marian's, likewise.
    if (tiedOutputBias)
        j["tied_output_bias"] = true;
    if (postNorm)
        j["post_norm"] = true;
    if (embeddingNorm)
        j["embedding_norm"] = true;
    if (maskedLmHead)
        j["mlm_head"] = true;
    j["tokenizer"] = {{"type", toString(tokenizer)},
                      {"src_vocab", srcVocabFile},
                      {"tgt_vocab", tgtVocabFile},
                      {"lowercase", lowercase}};
    if (tokenizer == TokenizerKind::ByteBpe)
        j["tokenizer"]["merges"] = mergesFile;
    return j.dump(2) + "\n";
}

void ModelConfig::recurrentToJson(json& j) const {
    j["family"] = toString(family);
    j["hidden_size"] = hiddenSize;
    j["src_vocab_size"] = srcVocabSize;
    j["max_len"] = maxLen;
    if (family == Family::AttentionClassifier) {
        j["embed_size"] = embedSize;
        j["classes"] = classes;
    } else {
        j["tgt_vocab_size"] = tgtVocabSize;
        j["attention_score"] = toString(score);
    }
    j["tokenizer"] = {{"type", toString(tokenizer)}, {"src_vocab", srcVocabFile}, {"lowercase", lowercase}};
    if (family == Family::GruAttention)
        j["tokenizer"]["tgt_vocab"] = tgtVocabFile;
}

} // namespace core
