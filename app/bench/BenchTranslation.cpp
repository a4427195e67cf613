#include "app/bench/BenchTranslation.h"

#include "core/base/Runtime.h"
#include "core/model/Model.h"
#include "core/run/Session.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

const char* const kBenchSentence =
    "The old man and his young daughter walked to the small white house near the river after a long day.";

int wordCount(const std::string& text) {
    std::istringstream in(text);
    std::string word;
    int n = 0;
    while (in >> word)
        ++n;
    return n;
}

namespace {

/// One pass of a sentence through the session, as the window makes it, and what each part cost.
struct TranslationRun {
    double analyzeMs = 0.0;
    double stepsMs = 0.0;
    double snapshotMs = 0.0;
    double totalMs = 0.0;
    int64_t outputTokens = 0;
    std::size_t snapshotBytes = 0;
};

TranslationRun translateOnce(core::Session& session, const std::string& src) {
    TranslationRun r;
    const auto t0 = BenchClock::now();
    session.analyze(src);
    r.analyzeMs = msSince(t0);
    const auto t1 = BenchClock::now();
    while (!session.finished())
        session.step();
    r.stepsMs = msSince(t1);
    const auto t2 = BenchClock::now();
    const auto snap = session.snapshot();
    r.snapshotMs = msSince(t2);
    r.totalMs = msSince(t0); // before the snapshot is freed: the window keeps it
    r.outputTokens = session.decodedCount();
    r.snapshotBytes = snap.bytes();
    return r;
}

std::vector<Row> translationRows(const std::vector<TranslationRun>& runs) {
    return {
        {"translate", "translate (end to end)", summarize(runs, [](const auto& r) { return r.totalMs; })},
        {"analyze", "  analyze (tokenize + encode)",
         summarize(runs, [](const auto& r) { return r.analyzeMs; })},
        {"steps", "  decode steps (sum)", summarize(runs, [](const auto& r) { return r.stepsMs; })},
        {"snapshot", "  snapshot", summarize(runs, [](const auto& r) { return r.snapshotMs; })},
        {"step", "decode step (per token)",
         summarize(runs,
                   [](const auto& r) {
                       return r.stepsMs / static_cast<double>(std::max<int64_t>(1, r.outputTokens));
                   })},
    };
}

} // namespace

TranslationReport measureTranslation(const std::string& modelDir, const std::string& src, const Plan& plan,
                                     int threads) {
    TranslationReport report;
    report.modelDir = modelDir;
    report.src = src;
    const auto model = core::Model::load(modelDir);
    core::configureThreads(threads); // after load, which sets every core; 0 keeps that
    core::Session session(model);
    const auto runs = repeat(plan, [&] { return translateOnce(session, src); });

    report.config = model->config();
    report.device = model->deviceName();
    report.srcTokens =
        (report.config.hasEncoder() ? model->sourceTokens(src) : model->targetTokens(src)).size();
    report.output = session.decodedText();
    report.outputTokens = runs.back().outputTokens;
    report.snapshotBytes = runs.back().snapshotBytes;
    report.rows = translationRows(runs);
    return report;
}

void printText(const TranslationReport& r) {
    const auto& c = r.config;
    std::printf(
        "== End-to-end greedy translation (analyze, decode to the end, snapshot), as the window does\n");
    std::printf("model     %s (%s): %d+%d layers, d_model %d, %d heads, its own weights\n", c.name.c_str(),
                r.modelDir.c_str(), c.hasEncoder() ? c.encoderLayers : 0, c.decoderLayers, c.dModel, c.heads);
    std::printf("source    %d words, %zu tokens: %s\n", wordCount(r.src), r.srcTokens, r.src.c_str());
    std::printf("output    %lld tokens (<eos> included): %s\n", static_cast<long long>(r.outputTokens),
                r.output.c_str());
    std::printf("snapshot  %.3f MB of attention and log-probabilities\n\n",
                static_cast<double>(r.snapshotBytes) / 1e6);
    printRows(r.rows);
}

nlohmann::ordered_json toJson(const TranslationReport& r) {
    const auto& c = r.config;
    nlohmann::ordered_json j;
    j["model"] = {{"name", c.name},
                  {"dir", r.modelDir},
                  {"encoder_layers", c.hasEncoder() ? c.encoderLayers : 0},
                  {"decoder_layers", c.decoderLayers},
                  {"d_model", c.dModel},
                  {"heads", c.heads}};
    j["src"] = r.src;
    j["src_words"] = wordCount(r.src);
    j["src_tokens"] = r.srcTokens;
    j["output"] = r.output;
    j["output_tokens"] = r.outputTokens;
    j["snapshot_bytes"] = r.snapshotBytes;
    j["rows"] = toJson(r.rows);
    return j;
}
