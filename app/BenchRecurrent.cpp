#include "BenchRecurrent.h"

#include "core/model/RecurrentNets.h"

#include <cstdio>

namespace {

constexpr int64_t kLength = 64;
constexpr int64_t kClassifierVocab = 10000, kEmbed = 100, kClassifierHidden = 128, kClasses = 2;
constexpr int64_t kTranslatorVocab = 8000, kTranslatorHidden = 256;

} // namespace

RecurrentReport measureRecurrent(const Plan& plan, const std::string& weightsDir) {
    core::ClassifierNet classifier(kClassifierVocab, kEmbed, kClassifierHidden, kClasses, 1);
    core::GruTranslatorNet translator(kTranslatorVocab, kTranslatorVocab, kTranslatorHidden, 1);
    RecurrentReport r;
    r.plan = plan;
    r.weights = "random (seed 1)";
    if (!weightsDir.empty()) {
        classifier.load(weightsDir + "/classifier.safetensors");
        translator.load(weightsDir + "/translator.safetensors");
        r.weights = weightsDir;
    }
    // Ids as the seed's bench script draws them, so both sides read the same tokens.
    std::vector<int64_t> tokens, src;
    for (int64_t i = 0; i < kLength; ++i) {
        tokens.push_back(4 + (i * 37) % (kClassifierVocab - 4));
        src.push_back(4 + (i * 53) % (kTranslatorVocab - 4));
    }
    const auto classify = repeat(plan, [&] {
        const auto t0 = BenchClock::now();
        classifier.classify(tokens);
        return msSince(t0);
    });
    const auto encode = repeat(plan, [&] {
        const auto t0 = BenchClock::now();
        translator.encode(src);
        return msSince(t0);
    });
    // The steps follow one another from the encoded source, as in a decode; one costs the same whatever the
    // hidden state holds.
    const auto step = repeat(plan, [&] {
        const auto t0 = BenchClock::now();
        translator.step(1);
        return msSince(t0);
    });
    r.rows = {{"classifier_keystroke",
               "classifier: a keystroke, 64 tokens (embedding, BiLSTM, pooling, logits)",
               summarize(classify)},
              {"translator_encode", "GRU translator: encode a 64-token source", summarize(encode)},
              {"translator_step", "GRU translator: one decode step over 64 source states", summarize(step)}};
    return r;
}

void printText(const RecurrentReport& r) {
    std::printf("\n== The seed's recurrent attention models (weights: %s)\n", r.weights.c_str());
    printRows(r.rows);
}

nlohmann::ordered_json toJson(const RecurrentReport& r) {
    nlohmann::ordered_json j;
    j["weights"] = r.weights;
    j["length"] = kLength;
    j["rows"] = toJson(r.rows);
    return j;
}
