#include "app/bench/BenchRecurrent.h"

#include "core/base/Files.h"
#include "core/model/Model.h"
#include "core/run/DecoderFactory.h"
#include "core/run/Session.h"
#include "core/run/StepDecoder.h"

#include <nlohmann/json.hpp>

#include <QTemporaryDir>

#include <cstdio>
#include <filesystem>

namespace {

constexpr int64_t kLength = 64;
constexpr int64_t kClassifierVocab = 10000, kEmbed = 100, kClassifierHidden = 128, kClasses = 2;
constexpr int64_t kTranslatorVocab = 8000, kTranslatorHidden = 256;

// A word vocabulary whose ids are their positions (the specials, then w4, w5, …): the bench feeds ids.
std::string words(int64_t size) {
    nlohmann::json v;
    const char* specials[] = {"<pad>", "<bos>", "<eos>", "<unk>"};
    for (int64_t i = 0; i < size; ++i)
        v[i < 4 ? specials[i] : "w" + std::to_string(i)] = i;
    return v.dump();
}

// The two models as the window opens them: a model directory each, with the weights given (the seed's
// script writes them) or random ones.
std::shared_ptr<const core::Model> modelDirectory(const std::string& dir, const nlohmann::json& config,
                                                  const std::string& weights) {
    std::filesystem::create_directories(dir);
    core::writeFileAtomically(dir + "/config.json", config.dump(2));
    core::writeFileAtomically(dir + "/vocab.json", words(config["src_vocab_size"].get<int64_t>()));
    if (config.contains("tgt_vocab_size"))
        core::writeFileAtomically(dir + "/tgt_vocab.json", words(config["tgt_vocab_size"].get<int64_t>()));
    if (weights.empty()) {
        const auto c = core::ModelConfig::fromJson(config.dump());
        const auto src = core::Model::defaultVocabulary(c.srcVocabSize);
        core::Model::createRandom(c, src, core::Model::defaultVocabulary(c.tgtVocabSize), 1,
                                  core::DeviceChoice::Cpu)
            ->save(dir + "/random");
        std::filesystem::copy_file(dir + "/random/model.safetensors", dir + "/model.safetensors");
    } else {
        std::filesystem::copy_file(weights, dir + "/model.safetensors");
    }
    return core::Model::load(dir, core::DeviceChoice::Cpu);
}

} // namespace

RecurrentReport measureRecurrent(const Plan& plan, const std::string& weightsDir) {
    QTemporaryDir tmp;
    const std::string root = tmp.path().toStdString();
    const nlohmann::json classifierConfig = {{"name", "bench-classifier"},
                                             {"family", "attention_classifier"},
                                             {"src_vocab_size", kClassifierVocab},
                                             {"embed_size", kEmbed},
                                             {"hidden_size", kClassifierHidden},
                                             {"classes", {"negative", "positive"}},
                                             {"max_len", 512},
                                             {"tokenizer", {{"type", "word"}, {"src_vocab", "vocab.json"}}}};
    const nlohmann::json translatorConfig = {
        {"name", "bench-translator"},
        {"family", "gru_attention"},
        {"src_vocab_size", kTranslatorVocab},
        {"tgt_vocab_size", kTranslatorVocab},
        {"hidden_size", kTranslatorHidden},
        {"attention_score", "concat"},
        {"max_len", 512},
        {"tokenizer", {{"type", "word"}, {"src_vocab", "vocab.json"}, {"tgt_vocab", "tgt_vocab.json"}}}};
    static_assert(kClasses == 2, "two class names above");
    const auto classifier = modelDirectory(root + "/classifier", classifierConfig,
                                           weightsDir.empty() ? "" : weightsDir + "/classifier.safetensors");
    const auto translator = modelDirectory(root + "/translator", translatorConfig,
                                           weightsDir.empty() ? "" : weightsDir + "/translator.safetensors");
    RecurrentReport r;
    r.plan = plan;
    r.weights = weightsDir.empty() ? "random (seed 1)" : weightsDir;
    // Ids as the seed's bench script draws them, so both sides read the same tokens.
    std::vector<int64_t> tokens, src;
    for (int64_t i = 0; i < kLength; ++i) {
        tokens.push_back(4 + (i * 37) % (kClassifierVocab - 4));
        src.push_back(4 + (i * 53) % (kTranslatorVocab - 4));
    }
    // A keystroke as the window runs it: the Session reads the text and answers, and the view's snapshot
    // (weights, the answer token by token) is made.
    core::Session session(classifier);
    const auto classify = repeat(plan, [&] {
        const auto t0 = BenchClock::now();
        session.analyzeIds(tokens, {});
        const auto snap = session.snapshot();
        const double ms = msSince(t0);
        if (snap.pooling.keys != kLength)
            throw std::runtime_error("the classifier read the wrong length");
        return ms;
    });
    const auto encode = repeat(plan, [&] {
        const auto t0 = BenchClock::now();
        const auto decoder = core::startDecoder(translator, src);
        return msSince(t0);
    });
    // One step from the same state each time: fed, then forgotten (rewinding is a lookup).
    auto decoder = core::startDecoder(translator, src);
    decoder->push({1});
    const auto step = repeat(plan, [&] {
        const auto t0 = BenchClock::now();
        decoder->push({5});
        const double ms = msSince(t0);
        decoder->rewind(1);
        return ms;
    });
    r.rows = {{"classifier_keystroke",
               "classifier: a keystroke, 64 tokens (embedding, BiLSTM, pooling, logits, the view's snapshot)",
               summarize(classify)},
              {"translator_encode", "GRU translator: encode a 64-token source", summarize(encode)},
              {"translator_step", "GRU translator: one decode step over 64 source states", summarize(step)}};
    return r;
}

void printText(const RecurrentReport& r) {
    std::printf("\n== The seed's recurrent attention models, through the window's Session (weights: %s)\n",
                r.weights.c_str());
    printRows(r.rows);
}

nlohmann::ordered_json toJson(const RecurrentReport& r) {
    nlohmann::ordered_json j;
    j["weights"] = r.weights;
    j["length"] = kLength;
    j["rows"] = toJson(r.rows);
    return j;
}
