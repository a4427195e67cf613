#include "core/model/MarianCheckpoint.h"

#include "core/base/Errors.h"
#include "core/model/HfConfigKeys.h"
#include "core/model/HfTensors.h"
#include "core/model/WeightFiles.h"
#include "core/model/nn/Transformer.h"
#include "core/text/Vocabulary.h"

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

// Shapes: C d_model, F the feed-forward width, V vocab_size, P max_position_embeddings.

namespace core {

using nlohmann::json;

namespace {

constexpr const char* kFamily = "Marian";

// MarianConfig's special ids: pad 58100 (also where the decoder starts), eos 0.
int64_t tokenId(const json& j, const char* key, int64_t fallback, const std::string& source) {
    if (!j.contains(key) || j[key].is_null())
        return fallback;
    if (!j[key].is_number_integer() || j[key].get<int64_t>() < 0)
        throw ConfigError(source + ": Marian's '" + key + "' must be a token id (a whole number ≥ 0)");
    return j[key].get<int64_t>();
}

// The encoder's key when the decoder's says the same, so that one number serves both stacks.
int sameForBoth(const HfConfigKeys& keys, const char* encoderKey, const char* decoderKey, int fallback,
                int limit) {
    const int e = keys.integer(encoderKey, fallback, limit), d = keys.integer(decoderKey, fallback, limit);
    if (e != d)
        keys.fail("'" + std::string(encoderKey) + "' is " + std::to_string(e) + " but '" + decoderKey +
                  "' is " + std::to_string(d) + "; attnscope's encoder and decoder share one setting");
    return e;
}

// Ids config.json's bad_words_ids lists as sequences of one; longer sequences are banned by generate's
// lookahead, which has no counterpart here, and are left alone.
std::vector<int64_t> bannedTokens(const json& j, int64_t vocab, const std::string& source) {
    std::vector<int64_t> ids;
    if (!j.contains("bad_words_ids") || j["bad_words_ids"].is_null())
        return ids;
    const auto& lists = j["bad_words_ids"];
    if (!lists.is_array())
        throw ConfigError(source + ": Marian's 'bad_words_ids' must be a list of lists of token ids");
    for (const auto& list : lists) {
        if (!list.is_array())
            throw ConfigError(source + ": Marian's 'bad_words_ids' must be a list of lists of token ids");
        if (list.size() != 1)
            continue;
        if (!list[0].is_number_integer() || list[0].get<int64_t>() < 0 || list[0].get<int64_t>() >= vocab)
            throw ConfigError(source + ": Marian's 'bad_words_ids' holds " + list[0].dump() +
                              ", which is not a token id below vocab_size " + std::to_string(vocab));
        ids.push_back(list[0].get<int64_t>());
    }
    return ids;
}

} // namespace

bool isMarian(const std::string& modelType) {
    return modelType == "marian";
}

ModelConfig marianConfigFromParsed(const json& j, const std::string& source) {
    const HfConfigKeys keys(j, source, kFamily);
    ModelConfig c;
    c.architecture = Architecture::EncoderDecoder;
    c.dModel = keys.integer("d_model", 1024, 65536);
    c.encoderLayers = keys.integer("encoder_layers", 12, 256);
    c.decoderLayers = keys.integer("decoder_layers", 12, 256);
    c.heads = sameForBoth(keys, "encoder_attention_heads", "decoder_attention_heads", 16, 1024);
    if (c.dModel % c.heads != 0)
        keys.fail("d_model " + std::to_string(c.dModel) + " is not divisible by the " +
                  std::to_string(c.heads) + " attention heads");
    c.dFf = sameForBoth(keys, "encoder_ffn_dim", "decoder_ffn_dim", 4096, 1 << 20);
    c.srcVocabSize = c.tgtVocabSize = keys.integer("vocab_size", 58101, 1 << 24);
    if (keys.integer("decoder_vocab_size", c.srcVocabSize, 1 << 24) != c.srcVocabSize ||
        !keys.flag("share_encoder_decoder_embeddings", true))
        keys.fail("separate source and target vocabularies ('share_encoder_decoder_embeddings': false or a "
                  "'decoder_vocab_size' of its own) are not implemented; attnscope reads Marian models whose "
                  "sides share vocab.json");
    c.maxLen = keys.integer("max_position_embeddings", 1024, 1 << 20);
    c.activation = keys.activation("activation_function", "gelu");
    c.positional = PositionalEncoding::Sinusoidal;
    c.sinusoidHalves = true;
    c.layerNorm = LayerNormKind::Standard;
    c.normEps = 1e-5; // nn.LayerNorm's default, which MarianEncoderLayer and MarianDecoderLayer use
    c.postNorm = true;
    c.scaleEmbeddings = keys.flag("scale_embedding", false);
    c.shareEmbeddings = true;
    c.tieOutput = keys.flag("tie_word_embeddings", true);
    // final_logits_bias, added to the tied table's logits or to an untied lm_head's.
    c.tiedOutputBias = c.tieOutput;
    c.outputBias = true;
    bannedTokens(j, c.tgtVocabSize,
                 source); // checked here, where config.json is named; the loader applies it
    c.tokenizer = TokenizerKind::Marian;
    c.srcVocabFile = "source.spm";
    c.tgtVocabFile = "target.spm";
    c.name = keys.modelName("marian");
    c.validate(source);
    return c;
}

void checkMarianSpecialIds(const json& j, const Vocabulary& vocab, const std::string& source) {
    const auto pad = tokenId(j, "pad_token_id", 58100, source);
    const auto start = tokenId(j, "decoder_start_token_id", pad, source);
    const auto eos = tokenId(j, "eos_token_id", 0, source);
    auto check = [&](const char* key, int64_t id, int64_t expected, const char* token) {
        if (id != expected)
            throw ModelError(source + ": '" + key + "' is " + std::to_string(id) + " but vocab.json gives " +
                             token + " the id " + std::to_string(expected));
    };
    check("pad_token_id", pad, vocab.pad(), "<pad>");
    check("decoder_start_token_id", start, vocab.bos(), "<pad>");
    check("eos_token_id", eos, vocab.eos(), "</s>");
}

void loadMarianWeights(nn::TransformerImpl& net, const WeightFiles& files, const json& config) {
    const auto& c = net.config();
    if (!c.twoSided() || !c.postNorm || !c.sinusoidHalves || !c.shareEmbeddings)
        throw std::invalid_argument("loadMarianWeights needs a net built from marianConfigFromParsed()");
    torch::NoGradGuard noGrad;
    const int64_t C = c.dModel, F = c.dFf, V = c.tgtVocabSize, P = c.maxLen;
    auto params = net.named_parameters(/*recurse=*/true);
    std::set<std::string> assigned;
    auto set = [&](const std::string& ours, const torch::Tensor& value) {
        params[ours].copy_(value);
        assigned.insert(ours);
    };
    // MarianMTModel saves the base model under "model." with lm_head and final_logits_bias beside it;
    // MarianModel without the prefix and without either.
    const bool prefixed = files.find("model.encoder.layers.0.self_attn.q_proj.weight") != nullptr;
    HfTensors in(files, prefixed ? "model." : "", kFamily, {"lm_head.", "final_logits_bias"});
    auto linear = [&](const std::string& ours, const std::string& theirs, int64_t rows, int64_t cols) {
        set(ours + ".weight", in.take(theirs + ".weight", {rows, cols}));
        set(ours + ".bias", in.take(theirs + ".bias", {rows}));
    };
    auto norm = [&](const std::string& ours, const std::string& theirs) {
        set(ours + ".a_2", in.take(theirs + ".weight", {C}));
        set(ours + ".b_2", in.take(theirs + ".bias", {C}));
    };
    auto attention = [&](const std::string& ours, const std::string& theirs) {
        const char* proj[] = {"q_proj", "k_proj", "v_proj", "out_proj"};
        for (int p = 0; p < 4; ++p)
            linear(ours + ".linears." + std::to_string(p), theirs + "." + proj[p], C, C);
    };

    // One token table, saved under whichever of its names the writer kept (safetensors keeps one of tied
    // tensors; older files have them all); every copy must hold the same.
    const bool tied = c.tieOutput;
    std::vector<std::string> tableNames = {"shared.weight", "encoder.embed_tokens.weight",
                                           "decoder.embed_tokens.weight"};
    if (tied)
        tableNames.push_back("lm_head.weight");
    torch::Tensor table;
    std::string tableName;
    for (const auto& name : tableNames) {
        if (!in.find(name))
            continue;
        const auto t = in.take(name, {V, C});
        if (!table.defined()) {
            table = t;
            tableName = name;
        } else if (!torch::equal(t, table)) {
            throw ModelError(in.path() + ": tensor '" + in.find(name)->name + "' differs from '" +
                             in.find(tableName)->name + "'; attnscope reads Marian models whose sides " +
                             (tied ? "and output " : "") + "share one token table");
        }
    }
    if (!table.defined())
        in.take("shared.weight", {V, C}); // throws, naming the tensor that is missing
    set("src_embed.0.lut.weight", table);

    // The positions: the stored sinusoid (1, P', C), or the formula's when the file leaves it out.
    for (auto [side, stack] : {std::pair{"encoder", net.src_embed}, std::pair{"decoder", net.tgt_embed}}) {
        const auto name = std::string(side) + ".embed_positions.weight";
        const auto* info = in.find(name);
        if (!info)
            continue;
        if (info->shape.size() != 2 || info->shape[0] < P || info->shape[1] != C)
            throw ModelError(in.path() + ": tensor '" + info->name + "' has shape " +
                             HfTensors::shapeText(info->shape) + " but config.json implies [" +
                             std::to_string(P) + ", " + std::to_string(C) + "]");
        stack->positions->setSinusoidal(in.take(name, info->shape).unsqueeze(0)); // (1, P', C)
    }

    for (int i = 0; i < c.encoderLayers; ++i) {
        const auto ours = "encoder.layers." + std::to_string(i) + ".";
        const auto h = "encoder.layers." + std::to_string(i) + ".";
        attention(ours + "self_attn", h + "self_attn");
        norm(ours + "sublayer.0.norm", h + "self_attn_layer_norm");
        linear(ours + "feed_forward.w_1", h + "fc1", F, C);
        linear(ours + "feed_forward.w_2", h + "fc2", C, F);
        norm(ours + "sublayer.1.norm", h + "final_layer_norm");
    }
    for (int i = 0; i < c.decoderLayers; ++i) {
        const auto ours = "decoder.layers." + std::to_string(i) + ".";
        const auto h = "decoder.layers." + std::to_string(i) + ".";
        attention(ours + "self_attn", h + "self_attn");
        norm(ours + "sublayer.0.norm", h + "self_attn_layer_norm");
        attention(ours + "src_attn", h + "encoder_attn");
        norm(ours + "sublayer.1.norm", h + "encoder_attn_layer_norm");
        linear(ours + "feed_forward.w_1", h + "fc1", F, C);
        linear(ours + "feed_forward.w_2", h + "fc2", C, F);
        norm(ours + "sublayer.2.norm", h + "final_layer_norm");
    }

    // final_logits_bias (1, V): MarianMTModel's; a bare MarianModel has none, and adds nothing.
    auto bias =
        in.find("final_logits_bias") ? in.take("final_logits_bias", {1, V})[0].clone() : torch::zeros({V});
    // transformers' generate never picks a token bad_words_ids lists alone (opus-mt's list <pad>, where the
    // decoder starts, whose zero row would otherwise score 0 at every step). kBanned keeps it out of every
    // way this program picks a token, and keeps the distributions finite where −∞ would make an entropy NaN.
    for (const auto id : bannedTokens(config, V, files.path()))
        bias[id] = kBanned;
    if (tied) {
        set("generator.bias", bias);
    } else {
        set("generator.proj.weight", in.take("lm_head.weight", {V, C}));
        set("generator.proj.bias", bias);
    }
    in.refuseLeftovers();
    if (assigned.size() != params.size())
        throw std::logic_error("loadMarianWeights left parameters of the net unset");
}

} // namespace core
