#pragma once
// The first section of `attnscope bench`: one sentence typed into the window and decoded to the end, through
// core::Session as the window drives it (analyze, greedy steps with the KV cache, the snapshot).

#include "app/bench/BenchMeasure.h"

#include "core/model/ModelConfig.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

/// 20 words by whitespace split: long enough that decoding dominates, as in everyday use of the window.
extern const char* const kBenchSentence;

int wordCount(const std::string& text);

/// What one run produced and what the runs cost.
struct TranslationReport {
    std::string modelDir;
    core::ModelConfig config;
    std::string device;
    std::string src;
    std::size_t srcTokens = 0;
    std::string output;
    int64_t outputTokens = 0; // decoded after <bos>, <eos> included; each run decodes the same (greedy)
    std::size_t snapshotBytes = 0;
    std::vector<Row> rows;
};

/// Loads the model (not timed) and translates `src` plan.warmup + plan.runs times. `threads` as for
/// core::configureThreads (0: every core). Throws core::Error for a bad model directory or input.
TranslationReport measureTranslation(const std::string& modelDir, const std::string& src, const Plan& plan,
                                     int threads);

void printText(const TranslationReport& r);
nlohmann::ordered_json toJson(const TranslationReport& r);
