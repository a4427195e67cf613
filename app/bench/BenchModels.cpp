#include "app/bench/BenchModels.h"

#include "core/base/Errors.h"
#include "core/base/Runtime.h"
#include "core/model/ModelDirectory.h"

#include <algorithm>

namespace {

// The random sizes are made from fixed seeds so two runs of the table time the same arithmetic.
constexpr uint64_t kWeightSeed = 1;

// A random model needs a tokenizer, though the table feeds it ids: a character tokenizer over placeholder
// tokens is the one that accepts any vocabulary size.
core::ModelConfig withPlaceholderTokenizer(core::ModelConfig c) {
    c.tokenizer = core::TokenizerKind::Char;
    c.srcVocabFile = c.tgtVocabFile = "vocab.json";
    return c;
}

core::ModelConfig mediumConfig() {
    core::ModelConfig c;
    c.name = "medium";
    c.encoderLayers = c.decoderLayers = 6;
    c.dModel = 512;
    c.heads = 8;
    c.dFf = 2048;
    c.srcVocabSize = c.tgtVocabSize = 8000;
    c.maxLen = 512;
    return c;
}

core::ModelConfig gpt2Config() {
    core::ModelConfig c;
    c.name = "gpt2-small-shape";
    c.architecture = core::Architecture::DecoderOnly;
    c.decoderLayers = 12;
    c.dModel = 768;
    c.heads = 12;
    c.dFf = 3072;
    c.tgtVocabSize = 50257;
    c.maxLen = 1024;
    c.positional = core::PositionalEncoding::Learned;
    c.layerNorm = core::LayerNormKind::Standard;
    c.normEps = 1e-5;
    c.activation = core::Activation::GeluTanh;
    c.scaleEmbeddings = false;
    c.tieOutput = true;
    return c;
}

// SmolLM2-135M's shape: the Llama family's RMSNorm, rotary positions, 9 query heads sharing 3 key/value heads
// and a SwiGLU feed-forward, tied output; 134.5 M parameters (its vocabulary of 49,152).
core::ModelConfig llamaConfig() {
    core::ModelConfig c;
    c.name = "smollm2-135m-shape";
    c.architecture = core::Architecture::DecoderOnly;
    c.decoderLayers = 30;
    c.dModel = 576;
    c.heads = 9;
    c.kvHeads = 3;
    c.dFf = 1536;
    c.tgtVocabSize = 49152;
    c.maxLen = 8192;
    c.positional = core::PositionalEncoding::Rope;
    c.ropeBase = 100000.0;
    c.ropeStyle = core::RopeStyle::Halves;
    c.layerNorm = core::LayerNormKind::Rms;
    c.normEps = 1e-5;
    c.activation = core::Activation::Silu;
    c.gatedFeedForward = true;
    c.qkvBias = c.linearBias = c.outputBias = false;
    c.scaleEmbeddings = false;
    c.tieOutput = true;
    return c;
}

// BERT-base's shape (bert-base-uncased): encoder-only, post-norm blocks with GELU, learned positions and a
// norm over the embeddings, the masked-LM head tied to the token table; 110 M parameters.
core::ModelConfig bertConfig() {
    core::ModelConfig c;
    c.name = "bert-base-shape";
    c.architecture = core::Architecture::EncoderOnly;
    c.encoderLayers = 12;
    c.decoderLayers = 0;
    c.dModel = 768;
    c.heads = 12;
    c.dFf = 3072;
    c.srcVocabSize = c.tgtVocabSize = 30522;
    c.maxLen = 512;
    c.positional = core::PositionalEncoding::Learned;
    c.layerNorm = core::LayerNormKind::Standard;
    c.normEps = 1e-12;
    c.activation = core::Activation::Gelu;
    c.postNorm = c.embeddingNorm = c.maskedLmHead = true;
    c.scaleEmbeddings = false;
    c.tieOutput = c.tiedOutputBias = true;
    return c;
}

// opus-mt-en-de's shape (Marian): encoder–decoder, 6 + 6 post-norm layers with swish, the sinusoid in halves,
// one 58,101-row table for both sides and the output, with the final logits bias; 74 M parameters.
core::ModelConfig marianConfig() {
    core::ModelConfig c;
    c.name = "opus-mt-shape";
    c.encoderLayers = c.decoderLayers = 6;
    c.dModel = 512;
    c.heads = 8;
    c.dFf = 2048;
    c.srcVocabSize = c.tgtVocabSize = 58101;
    c.maxLen = 512;
    c.sinusoidHalves = true;
    c.layerNorm = core::LayerNormKind::Standard;
    c.normEps = 1e-5;
    c.activation = core::Activation::Silu;
    c.postNorm = true;
    c.shareEmbeddings = c.tieOutput = c.tiedOutputBias = true;
    return c;
}

BenchSize randomSize(const std::string& id, core::ModelConfig c, int longest, bool fitLongest) {
    BenchSize size;
    size.id = id;
    size.weights = "random (seed " + std::to_string(kWeightSeed) + ")";
    if (fitLongest && c.maxLen < longest + 1) {
        size.note = "max_len raised from " + std::to_string(c.maxLen) + " to " + std::to_string(longest + 1);
        c.maxLen = longest + 1;
    }
    c = withPlaceholderTokenizer(c);
    const auto src = core::Model::defaultVocabulary(c.twoSided() ? c.srcVocabSize : 4);
    const auto tgt = core::Model::defaultVocabulary(c.tgtVocabSize);
    size.model = core::Model::createRandom(c, src, tgt, kWeightSeed);
    return size;
}

} // namespace

std::string describeShape(const core::ModelConfig& c) {
    const auto vocab = c.twoSided() ? std::to_string(c.srcVocabSize) + "/" + std::to_string(c.tgtVocabSize)
                                    : std::to_string(c.tgtVocabSize);
    return c.shape() + ", d_ff " + std::to_string(c.dFf) + ", vocab " + vocab + ", max_len " +
           std::to_string(c.maxLen);
}

const std::vector<std::string>& namedSizes() {
    static const std::vector<std::string> names{"default", "medium", "gpt2", "llama", "bert", "marian"};
    return names;
}

BenchSize makeBenchSize(const std::string& entry, const std::string& defaultModelDir, int longest,
                        int threads) {
    BenchSize size;
    if (entry == "default")
        size = randomSize(entry, core::ModelDirectory::readConfig(defaultModelDir), longest, true);
    else if (entry == "medium")
        size = randomSize(entry, mediumConfig(), longest, true);
    else if (entry == "gpt2")
        size = randomSize(entry, gpt2Config(), longest, false); // its context is part of its shape
    else if (entry == "llama")
        size = randomSize(entry, llamaConfig(), longest, false);
    else if (entry == "bert")
        size = randomSize(entry, bertConfig(), longest, false);
    else if (entry == "marian")
        size = randomSize(entry, marianConfig(), longest, false);
    else {
        size.id = entry;
        size.weights = entry;
        size.model = core::Model::load(entry);
    }
    core::configureThreads(threads);
    return size;
}

BenchSize makeGpt2Size(int length, int threads) {
    auto c = gpt2Config();
    const auto shapeMaxLen = c.maxLen;
    c.maxLen = std::max(c.maxLen, length);
    auto size = randomSize("gpt2", c, length, false);
    if (c.maxLen != shapeMaxLen)
        size.note = "max_len raised from " + std::to_string(shapeMaxLen) + " to " + std::to_string(c.maxLen);
    core::configureThreads(threads);
    return size;
}

BenchSize loadLongSize(const std::string& dir, int length, int threads) {
    core::configureThreads(threads);
    BenchSize size{dir, dir, {}, core::Model::load(dir)};
    const auto& c = size.model->config();
    if (c.twoSided())
        throw core::InputError("--long-model " + dir +
                               " is an encoder-decoder model; the long section takes a "
                               "decoder-only or an encoder-only one");
    if (c.maxLen < length)
        throw core::InputError("--long-model " + dir + " takes at most " + std::to_string(c.maxLen) +
                               " tokens; --long-length is " + std::to_string(length));
    return size;
}

std::vector<int64_t> benchIds(int64_t n, int64_t vocab, int64_t salt) {
    std::vector<int64_t> ids;
    ids.reserve(static_cast<std::size_t>(std::max<int64_t>(0, n)));
    const auto span = std::max<int64_t>(1, vocab - 4);
    for (int64_t i = 0; i < n; ++i)
        ids.push_back(4 + ((i + 1) * 7919 + salt * 104729) % span);
    return ids;
}
