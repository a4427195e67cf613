#include "core/TrainRecipe.h"

#include "core/Errors.h"
#include "core/Files.h"

#include <nlohmann/json.hpp>

namespace core {

using nlohmann::json;

namespace {

template <typename T> T number(const json& v, const std::string& key, const std::string& source) {
    if (!v.is_number() || (std::is_integral_v<T> && !v.is_number_integer()))
        throw ConfigError(source + ": field '" + key + "' must be " +
                          (std::is_integral_v<T> ? "an integer" : "a number"));
    return v.get<T>();
}

} // namespace

TrainRecipe TrainRecipe::fromJson(const std::string& text, const std::string& source) {
    json j;
    try {
        j = json::parse(text);
    } catch (const json::parse_error& e) {
        throw FormatError(source + ": not valid JSON (" + e.what() + ")");
    }
    if (!j.is_object())
        throw FormatError(source + ": expected a JSON object");
    TrainRecipe r;
    bool haveModel = false;
    for (const auto& [key, v] : j.items()) {
        if (key == "name") {
            if (!v.is_string())
                throw ConfigError(source + ": field 'name' must be a string");
            r.name = v.get<std::string>();
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
            throw ConfigError(source + ": unknown field '" + key + "'");
        }
    }
    if (!haveModel)
        r.model.name = r.name;
    auto check = [&](bool ok, const std::string& what) {
        if (!ok)
            throw ConfigError(source + ": " + what);
    };
    check(r.batchSize >= 1, "batch_size must be at least 1");
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
    check(r.threads >= 0, "threads must be 0 (every core) or positive");
    check(r.model.tokenizer == TokenizerKind::Char,
          "tasks are spelled in characters: the model's tokenizer must be char");
    try {
        r.makeTask();
    } catch (const ConfigError& e) {
        throw ConfigError(source + ": " + e.what());
    }
    r.modelConfig().validate(source + ": model");
    return r;
}

TrainRecipe TrainRecipe::fromFile(const std::string& path) {
    return fromJson(readFile(path), path);
}

ModelConfig TrainRecipe::modelConfig() const {
    ModelConfig c = model;
    c.name = name;
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
    return j.dump(2) + "\n";
}

} // namespace core
