#include "core/model/ModelConfig.h"

#include "core/base/ConfigFields.h"
#include "core/base/Errors.h"
#include "core/base/Files.h"
#include "core/base/JsonText.h"
#include "core/base/Memory.h"

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
                                                      {"decoder_only", Architecture::DecoderOnly}};
const std::pair<const char*, PositionalEncoding> kPos[] = {{"sinusoidal", PositionalEncoding::Sinusoidal},
                                                           {"learned", PositionalEncoding::Learned},
                                                           {"rope", PositionalEncoding::Rope},
                                                           {"none", PositionalEncoding::None}};
const std::pair<const char*, LayerNormKind> kNorm[] = {{"seed", LayerNormKind::Seed},
                                                       {"standard", LayerNormKind::Standard}};
const std::pair<const char*, Activation> kAct[] = {
    {"relu", Activation::Relu}, {"gelu", Activation::Gelu}, {"gelu_tanh", Activation::GeluTanh}};
const std::pair<const char*, TokenizerKind> kTok[] = {{"char", TokenizerKind::Char},
                                                      {"word", TokenizerKind::Word},
                                                      {"sentencepiece", TokenizerKind::SentencePiece},
                                                      {"byte_bpe", TokenizerKind::ByteBpe}};

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
                                                  "rope_base",
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
        else if (key == "tokenizer")
            parseTokenizer(v, c, source);
        else
            throw ConfigError(source + ": unknown field '" + key + "'");
    }
    checkFamilyFields(c, given, source);
    shapeRecurrent(c);
    c.validate(source);
    return c;
}

ModelConfig ModelConfig::fromFile(const std::string& path) {
    return fromJson(readFile(path), path);
}

void ModelConfig::validate(const std::string& source) const {
    auto fail = [&](const std::string& what) { throw ConfigError(source + ": " + what); };
    auto positive = [&](int v, const char* key, int limit) {
        if (v < 1 || v > limit)
            fail(std::string("field '") + key + "' is " + std::to_string(v) + "; expected 1.." +
                 std::to_string(limit));
    };
    positive(maxLen, "max_len", 1 << 20);
    if (hasEncoder())
        positive(srcVocabSize, "src_vocab_size", 1 << 24);
    // Shown in one line of the window: a page of text there is a mistake, not a description.
    for (const auto& [text, key] : {std::pair{&description, "description"}, std::pair{&example, "example"}})
        if (text->size() > 1000)
            fail(std::string("field '") + key + "' has " + std::to_string(text->size()) +
                 " bytes; at most 1000 are shown");
    if (srcVocabFile.empty() || tgtVocabFile.empty())
        fail("tokenizer vocabulary file names must not be empty");
    for (const auto* f : {&srcVocabFile, &tgtVocabFile, &mergesFile})
        if (f->find('/') != std::string::npos || *f == "..")
            fail("tokenizer file '" + *f + "' must be a plain file name inside the model directory");
    if (recurrent())
        validateRecurrent(source);
    else
        validateTransformer(source);
    // Every size above is in range on its own, but not their product: d_model 65536 with d_ff 2^20 asks
    // for terabytes, and allocating it ended the program instead of reporting the file.
    checkMemoryFor(weightBytes(), source + ": the weights of this model");
}

std::string ModelConfig::shape() const {
    const auto n = [](int v) { return std::to_string(v); };
    switch (family) {
    case Family::AttentionClassifier:
        return "BiLSTM attention pooling, embedding " + n(embedSize) + ", hidden 2×" + n(hiddenSize) + ", " +
               n(static_cast<int>(classes.size())) + " classes";
    case Family::GruAttention:
        return std::string("GRU with ") +
               (score == RecurrentScore::Additive ? "additive" : "the seed's concat") +
               " attention, hidden " + n(hiddenSize);
    case Family::Transformer:
        break;
    }
    const std::string only = dFf == 0 ? " (attention-only)" : "";
    return hasEncoder() ? "encoder-decoder, " + n(encoderLayers) + "+" + n(decoderLayers) +
                              " layers, d_model " + n(dModel) + ", " + n(heads) + " heads" + only
                        : "decoder-only, " + n(decoderLayers) + " layers, d_model " + n(dModel) + ", " +
                              n(heads) + " heads" + only;
}

void ModelConfig::validateRecurrent(const std::string& source) const {
    auto fail = [&](const std::string& what) { throw ConfigError(source + ": " + what); };
    auto positive = [&](int v, const char* key, int limit) {
        if (v < 1 || v > limit)
            fail(std::string("field '") + key + "' is " + std::to_string(v) + "; expected 1.." +
                 std::to_string(limit));
    };
    positive(hiddenSize, "hidden_size", 1 << 16);
    if (family == Family::GruAttention) {
        positive(tgtVocabSize, "tgt_vocab_size", 1 << 24);
        return;
    }
    positive(embedSize, "embed_size", 1 << 16);
    if (classes.size() < 2 || classes.size() > 4096)
        fail("field 'classes' names " + std::to_string(classes.size()) + " classes; expected 2..4096");
    std::set<std::string> seen;
    for (const auto& label : classes) {
        if (label.empty() || label.size() > 64)
            fail("field 'classes' has a name of " + std::to_string(label.size()) + " bytes; expected 1..64");
        if (label.front() == '<' && label.back() == '>')
            fail("field 'classes' has \"" + label + "\": labels in <…> are kept for the special tokens");
        if (!seen.insert(label).second)
            fail("field 'classes' names \"" + label + "\" twice");
    }
}

void ModelConfig::validateTransformer(const std::string& source) const {
    auto fail = [&](const std::string& what) { throw ConfigError(source + ": " + what); };
    auto positive = [&](int v, const char* key, int limit) {
        if (v < 1 || v > limit)
            fail(std::string("field '") + key + "' is " + std::to_string(v) + "; expected 1.." +
                 std::to_string(limit));
    };
    if (hasEncoder())
        positive(encoderLayers, "encoder_layers", 256);
    positive(decoderLayers, "decoder_layers", 256);
    positive(dModel, "d_model", 65536);
    positive(heads, "heads", 1024);
    // 0 leaves the feed-forward sublayer out: an attention-only model, the kind circuits are read in.
    if (dFf < 0 || dFf > (1 << 20))
        fail("field 'd_ff' is " + std::to_string(dFf) + "; expected 0 (attention-only) or 1.." +
             std::to_string(1 << 20));
    positive(tgtVocabSize, "tgt_vocab_size", 1 << 24);
    if (dModel % heads != 0)
        fail("d_model " + std::to_string(dModel) + " is not divisible by heads " + std::to_string(heads));
    if (positional == PositionalEncoding::Sinusoidal && dModel % 2 != 0)
        fail("sinusoidal positions need an even d_model, got " + std::to_string(dModel));
    if (positional == PositionalEncoding::Rope && headDim() % 2 != 0)
        fail("rope needs an even head size (d_model / heads), got " + std::to_string(headDim()));
    if (!(normEps > 0.0 && normEps < 1.0))
        fail("field 'norm_eps' must be in (0, 1)");
    if (!(ropeBase > 1.0))
        fail("field 'rope_base' must be greater than 1");
    if (shareEmbeddings && !hasEncoder())
        fail("share_embeddings needs an encoder_decoder architecture");
    if (shareEmbeddings && srcVocabSize != tgtVocabSize)
        fail("share_embeddings needs src_vocab_size == tgt_vocab_size");
}

int64_t ModelConfig::parameterCount() const {
    if (recurrent())
        return recurrentParameterCount();
    // Mirrors nn/: a layer norm has a and b; a linear map its weight and bias.
    const int64_t c = dModel, f = dFf, norm = 2 * c;
    const int64_t attention = 4 * (c * c + c); // q, k, v, out
    const int64_t feedForward = c * f + f + f * c + c;
    const int64_t encoderLayer = attention + feedForward + 2 * norm;
    const int64_t decoderLayer = attention + (hasEncoder() ? attention + norm : 0) + feedForward + 2 * norm;
    const int64_t positions = positional == PositionalEncoding::Learned ? int64_t{maxLen} * c : 0;
    int64_t n = decoderLayers * decoderLayer + norm + positions;
    if (hasEncoder())
        n += encoderLayers * encoderLayer + norm + int64_t{srcVocabSize} * c + positions;
    if (!shareEmbeddings)
        n += int64_t{tgtVocabSize} * c;
    if (!tieOutput)
        n += c * tgtVocabSize + tgtVocabSize;
    return n;
}

int64_t ModelConfig::recurrentParameterCount() const {
    // Mirrors nn/: torch's LSTM and GRU carry weight_ih, weight_hh and two biases per direction, with 4
    // gates (LSTM) or 3 (GRU) of the hidden width each.
    const int64_t h = hiddenSize, e = embedSize;
    const auto rnn = [h](int64_t gates, int64_t input) { return gates * h * (input + h + 2); };
    if (family == Family::AttentionClassifier) {
        const int64_t k = static_cast<int64_t>(classes.size());
        return int64_t{srcVocabSize} * e + 2 * rnn(4, e) + (2 * h + 1) + k * 2 * h + k;
    }
    const int64_t attention = score == RecurrentScore::Concat ? 2 * h + 1 : 2 * h * h + h + h;
    const int64_t encoder = int64_t{srcVocabSize} * h + rnn(3, h);
    const int64_t decoder =
        int64_t{tgtVocabSize} * h + attention + rnn(3, 2 * h) + h * tgtVocabSize + tgtVocabSize;
    return encoder + decoder;
}

int64_t ModelConfig::bufferCount() const {
    if (recurrent() || positional != PositionalEncoding::Sinusoidal)
        return 0;
    return (hasEncoder() ? 2 : 1) * int64_t{maxLen} * dModel;
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
    j["decoder_layers"] = decoderLayers;
    j["d_model"] = dModel;
    j["heads"] = heads;
    j["d_ff"] = dFf;
    if (hasEncoder())
        j["src_vocab_size"] = srcVocabSize;
    j["tgt_vocab_size"] = tgtVocabSize;
    j["max_len"] = maxLen;
    j["positional_encoding"] = toString(positional);
    j["layer_norm"] = toString(layerNorm);
    j["norm_eps"] = normEps;
    j["activation"] = toString(activation);
    j["scale_embeddings"] = scaleEmbeddings;
    j["share_embeddings"] = shareEmbeddings;
    j["tie_output"] = tieOutput;
    if (positional == PositionalEncoding::Rope)
        j["rope_base"] = ropeBase;
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
