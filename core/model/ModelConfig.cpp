#include "core/model/ModelConfig.h"

#include "core/base/Errors.h"
#include "core/base/Memory.h"

#include <set>

namespace core {

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
    const std::string only =
        (keyValueHeads() < heads ? " sharing " + n(keyValueHeads()) + " key/value heads" : "") +
        std::string(dFf == 0 ? " (attention-only)" : "");
    const std::string rest = " layers, d_model " + n(dModel) + ", " + n(heads) + " heads" + only;
    switch (architecture) {
    case Architecture::EncoderDecoder:
        return "encoder-decoder, " + n(encoderLayers) + "+" + n(decoderLayers) + rest;
    case Architecture::DecoderOnly:
        return "decoder-only, " + n(decoderLayers) + rest;
    case Architecture::EncoderOnly:
        break;
    }
    return "encoder-only, " + n(encoderLayers) + rest + (maskedLmHead ? ", masked-LM head" : "");
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
    if (hasDecoder())
        positive(decoderLayers, "decoder_layers", 256);
    else if (decoderLayers != 0) // so that nothing sized by it counts decoder layers that do not exist
        fail("field 'decoder_layers' is " + std::to_string(decoderLayers) +
             "; an encoder_only model has none (0)");
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
    if (sinusoidHalves && positional != PositionalEncoding::Sinusoidal)
        fail("field 'sinusoid_halves' needs sinusoidal positions");
    if (positional == PositionalEncoding::Rope && headDim() % 2 != 0)
        fail("rope needs an even head size (d_model / heads), got " + std::to_string(headDim()));
    if (!(normEps > 0.0 && normEps < 1.0))
        fail("field 'norm_eps' must be in (0, 1)");
    if (!(ropeBase > 1.0))
        fail("field 'rope_base' must be greater than 1");
    if (kvHeads < 0 || kvHeads > heads || (kvHeads > 0 && heads % kvHeads != 0))
        fail("field 'kv_heads' is " + std::to_string(kvHeads) +
             "; expected 0 (one per head) or a divisor of "
             "heads " +
             std::to_string(heads));
    if (kvHeads > 0 && hasEncoder())
        fail("kv_heads (grouped-query attention) needs a decoder_only architecture");
    if (slidingWindow < 0 || (slidingWindow > 0 && slidingWindow < maxLen))
        fail("field 'sliding_window' is " + std::to_string(slidingWindow) +
             "; expected 0 (none) or at least max_len (" + std::to_string(maxLen) +
             "): inputs are held to max_len so that the window never cuts one");
    if (gatedFeedForward && dFf == 0)
        fail("gated_feed_forward needs a feed-forward sublayer (d_ff > 0)");
    if (shareEmbeddings && architecture != Architecture::EncoderDecoder)
        fail("share_embeddings needs an encoder_decoder architecture");
    if (maskedLmHead && hasDecoder())
        fail("mlm_head needs an encoder_only architecture (a decoder has its own output)");
    if (!hasDecoder() && srcVocabSize != tgtVocabSize)
        fail("an encoder_only model has one vocabulary: src_vocab_size " + std::to_string(srcVocabSize) +
             " and tgt_vocab_size " + std::to_string(tgtVocabSize) + " differ");
    if (!hasDecoder() && maskedLmHead && !tieOutput)
        fail("mlm_head reads its logits from the token table: it needs tie_output");
    if (shareEmbeddings && srcVocabSize != tgtVocabSize)
        fail("share_embeddings needs src_vocab_size == tgt_vocab_size");
}

int64_t ModelConfig::parameterCount() const {
    if (recurrent())
        return recurrentParameterCount();
    // Mirrors nn/: a layer norm has a gain and (but RMSNorm) a bias; a linear map its weight and, as the
    // bias fields say, a bias; grouped-query attention's k and v project to kv_heads heads only.
    const int64_t c = dModel, f = dFf, norm = layerNorm == LayerNormKind::Rms ? c : 2 * c;
    const int64_t kv = int64_t{keyValueHeads()} * headDim(), qkvB = qkvBias ? 1 : 0,
                  linB = linearBias ? 1 : 0;
    const int64_t selfAttention = (c + 2 * kv) * (c + qkvB) + c * c + linB * c; // q, k, v, out
    const int64_t crossAttention = 3 * c * (c + qkvB) + c * c + linB * c;       // every head its own k, v
    const int64_t feedForward =
        f == 0 ? 0 : (gatedFeedForward ? 3 : 2) * c * f + linB * ((gatedFeedForward ? 2 : 1) * f + c);
    const int64_t ffNorm = f == 0 ? 0 : norm;
    const int64_t encoderLayer = selfAttention + feedForward + norm + ffNorm;
    const int64_t decoderLayer =
        selfAttention + (hasEncoder() ? crossAttention + norm : 0) + feedForward + norm + ffNorm;
    const int64_t positions = positional == PositionalEncoding::Learned ? int64_t{maxLen} * c : 0;
    // Each side's embedding stack (its table, learned positions and the norm after them) and its stack's
    // final norm (post-norm stacks end without one).
    const int64_t sideExtra = positions + (embeddingNorm ? norm : 0) + (postNorm ? 0 : norm);
    int64_t n = 0;
    if (hasDecoder()) {
        n += decoderLayers * decoderLayer + sideExtra;
        if (!shareEmbeddings)
            n += int64_t{tgtVocabSize} * c;
    }
    if (hasEncoder())
        n += encoderLayers * encoderLayer + int64_t{srcVocabSize} * c + sideExtra;
    if (maskedLmHead)
        n += c * c + c + norm; // the head's dense map and norm
    if (hasOutput())
        n += tieOutput ? (tiedOutputBias ? tgtVocabSize : 0)
                       : c * tgtVocabSize + (outputBias ? tgtVocabSize : 0);
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
    return ((hasEncoder() ? 1 : 0) + (hasDecoder() ? 1 : 0)) * int64_t{maxLen} * dModel;
}

} // namespace core
