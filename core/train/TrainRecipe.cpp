#include "core/train/TrainRecipe.h"

#include "core/base/ConfigFields.h"
#include "core/base/Errors.h"
#include "core/base/Files.h"
#include "core/base/JsonText.h"
#include "core/base/Memory.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <limits>

namespace core {

using nlohmann::json;

namespace {

template <typename T> T number(const json& v, const std::string& key, const std::string& source) {
    if (!v.is_number() || (std::is_integral_v<T> && !v.is_number_integer()))
        throw ConfigError(source + ": field '" + key + "' must be " +
                          (std::is_integral_v<T> ? "an integer" : "a number"));
    if constexpr (std::is_integral_v<T>) {
        // get<int>() of 2147483648 wraps to a negative number without a word; compare in the widest type.
        const bool fits = v.is_number_unsigned()
                              ? v.get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<T>::max())
                              : v.get<int64_t>() >= static_cast<int64_t>(std::numeric_limits<T>::min()) &&
                                    (std::is_unsigned_v<T> ||
                                     v.get<int64_t>() <= static_cast<int64_t>(std::numeric_limits<T>::max()));
        if (!fits)
            throw ConfigError(source + ": field '" + key + "' is out of range");
    }
    return v.get<T>();
}

// Rough bytes one training step holds for the backward pass: per layer, the attention scores and
// probabilities of every head (B·H·T² each, and the mask's copy), the feed-forward's hidden rows and a dozen
// C-wide rows. Within a small factor of what LibTorch allocates, which is all a refusal needs.
int64_t activationBytes(const ModelConfig& c, int64_t batch, int64_t t) {
    // In double: with every size at its limit the product passes 2^63.
    const double layers = c.decoderLayers + (c.hasEncoder() ? 2.0 * c.encoderLayers : 0.0);
    const double rows = static_cast<double>(batch) * static_cast<double>(t);
    const double perLayer = rows * (3.0 * c.heads * static_cast<double>(t) + 2.0 * c.dFf + 12.0 * c.dModel);
    const double bytes = 4.0 * (layers * perLayer + rows * c.tgtVocabSize * 3.0);
    return bytes >= 9.0e18 ? std::numeric_limits<int64_t>::max() : static_cast<int64_t>(bytes);
}

// One of the fields that name the model and shape its run, into r; false for a key it does not know.
bool readRunField(TrainRecipe& r, const std::string& key, const json& v, const std::string& source,
                  bool& haveModel) {
    if (key == "name") {
        r.name = configString(v, key, source);
    } else if (key == "task") {
        if (!v.is_string())
            throw ConfigError(source + ": field 'task' must be a string");
        try {
            r.task = Task::parseKind(v.get<std::string>());
        } catch (const ConfigError& e) {
            throw ConfigError(source + ": " + e.what());
        }
    } else if (key == "model") {
        if (!v.is_object())
            throw ConfigError(source + ": field 'model' must be an object (a config.json)");
        r.model = ModelConfig::fromJson(v.dump(), source + ": model");
        haveModel = true;
    } else if (key == "min_len") {
        r.minLen = number<int>(v, key, source);
    } else if (key == "max_len") {
        r.maxLen = number<int>(v, key, source);
    } else if (key == "batch_size") {
        r.batchSize = number<int>(v, key, source);
    } else if (key == "steps") {
        r.steps = number<int64_t>(v, key, source);
    } else if (key == "warmup") {
        r.warmup = number<int>(v, key, source);
    } else if (key == "lr_factor") {
        r.lrFactor = number<double>(v, key, source);
    } else if (key == "adam_beta1") {
        r.adamBeta1 = number<double>(v, key, source);
    } else if (key == "adam_beta2") {
        r.adamBeta2 = number<double>(v, key, source);
    } else if (key == "adam_eps") {
        r.adamEps = number<double>(v, key, source);
    } else if (key == "label_smoothing") {
        r.labelSmoothing = number<double>(v, key, source);
    } else if (key == "clip_norm") {
        r.clipNorm = number<double>(v, key, source);
    } else if (key == "length_buckets") {
        r.lengthBuckets = number<int>(v, key, source);
    } else if (key == "seed") {
        r.seed = number<uint64_t>(v, key, source);
    } else if (key == "checkpoint_every") {
        r.checkpointEvery = number<int64_t>(v, key, source);
    } else if (key == "eval_every") {
        r.evalEvery = number<int64_t>(v, key, source);
    } else if (key == "eval_examples") {
        r.evalExamples = number<int>(v, key, source);
    } else if (key == "threads") {
        r.threads = number<int>(v, key, source);
    } else {
        return false;
    }
    return true;
}

// One of the fields of a corpus task's data and vocabulary, into r; false for a key it does not know.
bool readDataField(TrainRecipe& r, const std::string& key, const json& v, const std::string& source) {
    if (key == "corpus") {
        r.corpus = configString(v, key, source);
    } else if (key == "valid") {
        r.valid = configString(v, key, source);
    } else if (key == "spm_vocab_size") {
        r.spmVocabSize = number<int>(v, key, source);
    } else if (key == "spm_model_type") {
        r.spmModelType = configString(v, key, source);
    } else if (key == "spm_model") {
        r.spmModel = configString(v, key, source);
    } else if (key == "bpe_vocab_size") {
        r.bpeVocabSize = number<int>(v, key, source);
    } else if (key == "word_vocab_size") {
        r.wordVocabSize = number<int>(v, key, source);
    } else if (key == "max_tokens") {
        r.maxTokens = number<int>(v, key, source);
    } else {
        return false;
    }
    return true;
}

// The limits every recipe's fields keep, and which families learn which tasks.
void checkRunFields(const TrainRecipe& r, const std::string& source) {
    auto check = [&](bool ok, const std::string& what) {
        if (!ok)
            throw ConfigError(source + ": " + what);
    };
    check(r.model.hasDecoder(),
          "architecture encoder_only is read, not trained: a recipe trains a model that "
          "decodes");
    check(r.batchSize >= 1 && r.batchSize <= 65536, "batch_size must be in 1..65536");
    check(r.steps >= 1, "steps must be at least 1");
    check(r.warmup >= 1, "warmup must be at least 1");
    check(r.lrFactor > 0, "lr_factor must be positive");
    check(r.adamBeta1 >= 0 && r.adamBeta1 < 1 && r.adamBeta2 >= 0 && r.adamBeta2 < 1,
          "Adam betas must be in [0, 1)");
    check(r.adamEps > 0, "adam_eps must be positive");
    check(r.labelSmoothing >= 0 && r.labelSmoothing < 1, "label_smoothing must be in [0, 1)");
    check(r.clipNorm >= 0, "clip_norm must be 0 (off) or positive");
    check(r.lengthBuckets >= 1, "length_buckets must be at least 1");
    check(r.checkpointEvery >= 1 && r.evalEvery >= 1, "checkpoint_every and eval_every must be at least 1");
    check(r.evalExamples >= 1, "eval_examples must be at least 1");
    check(r.threads >= 0 && r.threads <= 1024, "threads must be 0 (every core) or up to 1024");
    check(r.lengthBuckets <= 1024 && r.evalExamples <= 1000000,
          "length_buckets must be at most 1024 and eval_examples at most 1000000");
    // First, so a family given the wrong task hears that rather than a task's own demand.
    // Which families learn which tasks: a classifier only classifies, and only a classifier does.
    check((r.task == TaskKind::Classification) == (r.model.family == Family::AttentionClassifier),
          r.task == TaskKind::Classification ? "classification trains the attention_classifier family"
                                             : "the attention_classifier family only learns classification");
    check(r.model.family != Family::GruAttention || r.task != TaskKind::LanguageModel,
          "the gru_attention family translates a source: it is no language model");
}

// What the recipe's task demands of its own fields and of the model.
void checkTaskFields(const TrainRecipe& r, const std::string& source) {
    auto check = [&](bool ok, const std::string& what) {
        if (!ok)
            throw ConfigError(source + ": " + what);
    };
    if (r.task == TaskKind::Translation) {
        check(!r.corpus.empty() && !r.valid.empty(),
              "a translation recipe names its 'corpus' and 'valid' TSV files");
        check(r.spmVocabSize >= 300,
              "spm_vocab_size must be at least 300 (4 specials and 256 byte pieces first)");
        check(r.spmModelType == "bpe" || r.spmModelType == "unigram",
              "spm_model_type must be bpe or unigram");
        check(r.spmVocabSize <= 1 << 20, "spm_vocab_size must be at most 1048576");
        check(r.maxTokens >= 1 && r.maxTokens <= 65536, "max_tokens must be in 1..65536");
        check(r.model.twoSided(), "translation trains an encoder-decoder model");
    } else if (r.task == TaskKind::LanguageModel) {
        check(!r.corpus.empty() && !r.valid.empty(),
              "a language-model recipe names its 'corpus' and 'valid' text files");
        check(r.bpeVocabSize >= 260, "bpe_vocab_size must be at least 260 (4 specials and 256 bytes first)");
        check(r.bpeVocabSize <= 1 << 20, "bpe_vocab_size must be at most 1048576");
        check(r.model.architecture == Architecture::DecoderOnly, "a language model is decoder_only");
    } else if (r.task == TaskKind::Classification) {
        check(!r.corpus.empty() && !r.valid.empty(),
              "a classification recipe names its 'corpus' and 'valid' TSV files (label, text)");
        check(r.wordVocabSize >= 5 && r.wordVocabSize <= 1 << 20, "word_vocab_size must be in 5..1048576");
        check(r.maxTokens >= 1 && r.maxTokens <= 65536, "max_tokens must be in 1..65536");
    } else {
        check(r.model.tokenizer == TokenizerKind::Char,
              "tasks are spelled in characters: the model's tokenizer must be char");
    }
}

// The config the recipe trains, and that one training step of it fits in memory.
void checkTrainingMemory(const TrainRecipe& r, const std::string& source) {
    const auto config = r.modelConfig();
    config.validate(source + ": model");
    const int64_t t = r.task == TaskKind::Translation || r.task == TaskKind::Classification ? r.maxTokens + 2
                                                                                            : config.maxLen;
    const int64_t weights = 4 * config.weightBytes(), activations = activationBytes(config, r.batchSize, t);
    const int64_t most = std::numeric_limits<int64_t>::max();
    checkMemoryFor(activations > most - weights ? most : weights + activations,
                   source + ": a training step of batch_size " + std::to_string(r.batchSize) +
                       " on sequences of " + std::to_string(t) + " tokens would");
}

} // namespace

TrainRecipe TrainRecipe::fromJson(const std::string& text, const std::string& source,
                                  const std::string& baseDir) {
    const json j = parseJsonObject(text, source);
    TrainRecipe r;
    r.baseDir = baseDir;
    bool haveModel = false;
    for (const auto& [key, v] : j.items())
        if (!readRunField(r, key, v, source, haveModel) && !readDataField(r, key, v, source))
            throw ConfigError(source + ": unknown field '" + key + "'");
    if (!haveModel)
        r.model.name = r.name;
    checkRunFields(r, source);
    checkTaskFields(r, source);
    try {
        r.makeTask();
    } catch (const ConfigError& e) {
        throw ConfigError(source + ": " + e.what());
    }
    checkTrainingMemory(r, source);
    return r;
}

TrainRecipe TrainRecipe::fromFile(const std::string& path) {
    return fromJson(readFile(path), path, std::filesystem::path(path).parent_path().string());
}

std::string TrainRecipe::resolve(const std::string& path) const {
    const std::filesystem::path p(path);
    return p.is_absolute() || baseDir.empty()
               ? path
               : (std::filesystem::path(baseDir) / p).lexically_normal().string();
}

TrainRecipe TrainRecipe::rebased(const std::string& dir) const {
    TrainRecipe r = *this;
    const auto abs = [](const std::string& p) { return std::filesystem::absolute(p).lexically_normal(); };
    const auto base = abs(dir);
    for (auto* p : {&r.corpus, &r.valid, &r.spmModel})
        if (!p->empty())
            *p = abs(resolve(*p)).lexically_relative(base).string();
    r.baseDir = dir;
    return r;
}

ModelConfig TrainRecipe::modelConfig() const {
    ModelConfig c = model;
    c.name = name;
    if (task == TaskKind::Translation) {
        // One joint SentencePiece vocabulary for both languages, so the tables may be shared.
        c.srcVocabSize = c.tgtVocabSize = spmVocabSize;
        c.tokenizer = TokenizerKind::SentencePiece;
        c.srcVocabFile = c.tgtVocabFile = "spm.model";
        c.maxLen = std::max(c.maxLen, maxTokens + 2);
        return c;
    }
    if (task == TaskKind::Classification) {
        c.srcVocabSize = wordVocabSize;
        c.tokenizer = TokenizerKind::Word;
        c.lowercase = true;
        c.srcVocabFile = "vocab.json";
        c.maxLen = std::max(c.maxLen, maxTokens + 2);
        return c;
    }
    if (task == TaskKind::LanguageModel) {
        // max_len is the training window (<bos> included), as the recipe's model says.
        c.tgtVocabSize = bpeVocabSize;
        c.tokenizer = TokenizerKind::ByteBpe;
        c.tgtVocabFile = "vocab.json";
        c.mergesFile = "merges.txt";
        return c;
    }
    const auto t = makeTask();
    const int vocab = static_cast<int>(t.alphabet().size()) + 4; // + <pad> <bos> <eos> <unk>
    c.srcVocabSize = vocab;
    c.tgtVocabSize = vocab;
    c.srcVocabFile = c.tgtVocabFile = "vocab.json";
    // Room for <bos> and <eos> around the longest sequence; decoder-only models see source and target.
    const int need = c.hasEncoder() ? std::max(t.maxSourceLength(), t.maxTargetLength()) + 2
                                    : t.maxSourceLength() + t.maxTargetLength() + 3;
    c.maxLen = std::max(c.maxLen, need);
    return c;
}

std::string TrainRecipe::toJson() const {
    json j;
    j["name"] = name;
    j["task"] = Task::toString(task);
    j["min_len"] = minLen;
    j["max_len"] = maxLen;
    j["model"] = json::parse(model.toJson());
    j["model"].erase("name");
    j["batch_size"] = batchSize;
    j["steps"] = steps;
    j["warmup"] = warmup;
    j["lr_factor"] = lrFactor;
    j["adam_beta1"] = adamBeta1;
    j["adam_beta2"] = adamBeta2;
    j["adam_eps"] = adamEps;
    j["label_smoothing"] = labelSmoothing;
    j["clip_norm"] = clipNorm;
    j["length_buckets"] = lengthBuckets;
    j["seed"] = seed;
    j["checkpoint_every"] = checkpointEvery;
    j["eval_every"] = evalEvery;
    j["eval_examples"] = evalExamples;
    j["threads"] = threads;
    if (task == TaskKind::Translation) {
        j["corpus"] = corpus;
        j["valid"] = valid;
        j["spm_vocab_size"] = spmVocabSize;
        j["spm_model_type"] = spmModelType;
        if (!spmModel.empty())
            j["spm_model"] = spmModel;
        j["max_tokens"] = maxTokens;
    }
    if (task == TaskKind::LanguageModel) {
        j["corpus"] = corpus;
        j["valid"] = valid;
        j["bpe_vocab_size"] = bpeVocabSize;
    }
    if (task == TaskKind::Classification) {
        j["corpus"] = corpus;
        j["valid"] = valid;
        j["word_vocab_size"] = wordVocabSize;
        j["max_tokens"] = maxTokens;
    }
    return j.dump(2) + "\n";
}

} // namespace core
