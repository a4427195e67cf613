// `attnscope bench`: how long the program takes for what a user does, measured the way the window does it.
// For now one measurement, end-to-end greedy translation of one sentence; the rest of the benchmark table
// (analysis and decode-step latency per model size and length, capture cost, snapshot memory, paint time)
// adds rows through the same pieces: repeat() runs a body after warm-up, summarize() reduces the samples to
// median/min/max, and a Row goes into the table that is printed as text or JSON.

#include "Args.h"
#include "Commands.h"

#include "core/BlasCore.h"
#include "core/Errors.h"
#include "core/Model.h"
#include "core/Runtime.h"
#include "core/Session.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

const char* kHelp =
    R"(usage: attnscope bench [--model DIR] [--src TEXT] [--runs N] [--warmup W] [--threads N] [--json]

Times what the window does when a sentence is typed and decoded to the end: Session analyze (tokenize and
encode), greedy steps with the KV cache until <eos> or max_len (every attention row captured), then the
snapshot the views are given. Loading the model is not timed. W untimed warm-up runs come first, then N
timed runs; the table gives the median, min and max in milliseconds of the whole and of each part.

  --model DIR    model directory (default: the built-in default model)
  --src TEXT     the source sentence (default: a 20-word everyday English sentence)
  --runs N       timed runs, at least 1 (default 30; quote medians of 20 or more)
  --warmup W     untimed runs before them, 0 or more (default 3)
  --threads N    intra-op threads, at least 1 (default: every core, as the program uses)
  --json         print the same as one JSON object
Exit status: 0 on success, 2 on bad arguments or input.
)";

// 20 words by whitespace split: long enough that decoding dominates, as in everyday use of the window.
const char* kDefaultSource =
    "The old man and his young daughter walked to the small white house near the river after a long day.";

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

/// The spread of one measurement over the timed runs.
struct Stat {
    double median = 0.0;
    double min = 0.0;
    double max = 0.0;
    int runs = 0;
};

// The median rather than the mean: a run that a background job (training on the same cores) interrupts
// moves the mean, not the median; min and max show how noisy the machine was.
Stat summarize(std::vector<double> samples) {
    Stat s;
    if (samples.empty())
        return s;
    std::sort(samples.begin(), samples.end());
    const auto n = samples.size();
    s.median = n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
    s.min = samples.front();
    s.max = samples.back();
    s.runs = static_cast<int>(n);
    return s;
}

/// The same per-run field of every run, summarized.
template <class Result, class Field> Stat summarize(const std::vector<Result>& results, Field field) {
    std::vector<double> samples;
    samples.reserve(results.size());
    for (const auto& r : results)
        samples.push_back(field(r));
    return summarize(std::move(samples));
}

struct Plan {
    int warmup = 3;
    int runs = 30;
};

// The first runs through a model pay for the allocator's first blocks, OpenBLAS's buffers and cold caches;
// the warm-up runs absorb that, so the timed runs show the steady state a user sees from the second
// sentence on.
template <class Body> auto repeat(const Plan& plan, Body body) -> std::vector<decltype(body())> {
    for (int i = 0; i < plan.warmup; ++i)
        body();
    std::vector<decltype(body())> results;
    results.reserve(static_cast<std::size_t>(plan.runs));
    for (int i = 0; i < plan.runs; ++i)
        results.push_back(body());
    return results;
}

/// One line of the table: a stable id for scripts, a label for people, and the spread.
struct Row {
    std::string id;
    std::string label;
    Stat stat;
    std::string unit = "ms";
};

void printTable(const std::vector<Row>& rows) {
    std::size_t width = 7;
    for (const auto& r : rows)
        width = std::max(width, r.label.size());
    std::printf("%-*s %10s %10s %10s\n", static_cast<int>(width), "measure", "median", "min", "max");
    for (const auto& r : rows)
        std::printf("%-*s %10.2f %10.2f %10.2f %s\n", static_cast<int>(width), r.label.c_str(), r.stat.median,
                    r.stat.min, r.stat.max, r.unit.c_str());
}

nlohmann::ordered_json toJson(const Row& r) {
    return {{"id", r.id},        {"label", r.label},  {"unit", r.unit},     {"median", r.stat.median},
            {"min", r.stat.min}, {"max", r.stat.max}, {"runs", r.stat.runs}};
}

std::string cpuModel() {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("model name", 0) == 0) {
            const auto colon = line.find(':');
            if (colon != std::string::npos)
                return line.substr(line.find_first_not_of(" \t", colon + 1));
        }
    return "unknown";
}

int wordCount(const std::string& text) {
    std::istringstream in(text);
    std::string word;
    int n = 0;
    while (in >> word)
        ++n;
    return n;
}

/// One pass of a sentence through the session, as the window makes it, and what each part cost.
struct TranslationRun {
    double analyzeMs = 0.0;
    double stepsMs = 0.0;
    double snapshotMs = 0.0;
    double totalMs = 0.0;
    int64_t outputTokens = 0; // decoded after <bos>, <eos> included
    std::size_t snapshotBytes = 0;
};

TranslationRun translateOnce(core::Session& session, const std::string& src) {
    TranslationRun r;
    const auto t0 = Clock::now();
    session.analyze(src);
    r.analyzeMs = msSince(t0);
    const auto t1 = Clock::now();
    while (!session.finished())
        session.step();
    r.stepsMs = msSince(t1);
    const auto t2 = Clock::now();
    const auto snap = session.snapshot();
    r.snapshotMs = msSince(t2);
    r.totalMs = msSince(t0); // before the snapshot is freed: the window keeps it
    r.outputTokens = session.decodedCount();
    for (const auto* b : {&snap.encoder, &snap.decoder, &snap.cross})
        r.snapshotBytes += b->data.size() * sizeof(float);
    r.snapshotBytes += snap.nextTokenLogProbs.size() * sizeof(float);
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

/// Where the numbers were measured, so a table pasted into an issue carries its context.
struct Machine {
    std::string cpu;
    int threads = 0;
    std::string openblas; // empty when LibTorch does not call OpenBLAS
    std::string torch;
};

Machine thisMachine() {
    return {cpuModel(), core::threadCount(), core::blasCoreName(), core::torchVersion()};
}

/// Everything one `bench` run prints, as text or as JSON.
struct Report {
    Machine machine;
    Plan plan;
    std::string modelDir;
    std::string device;
    core::ModelConfig config;
    std::string src;
    std::size_t srcTokens = 0;
    std::string output;
    TranslationRun last; // what the runs produced; each run produces the same (greedy)
    std::vector<Row> rows;
};

void printText(const Report& r) {
    const auto& c = r.config;
    std::printf("attnscope bench: end-to-end greedy translation (analyze, decode to the end, snapshot)\n");
    std::printf("machine   %s (%s), %d threads, OpenBLAS %s, LibTorch %s\n", r.machine.cpu.c_str(),
                r.device.c_str(), r.machine.threads,
                r.machine.openblas.empty() ? "not in use" : r.machine.openblas.c_str(),
                r.machine.torch.c_str());
    std::printf("model     %s (%s): %d+%d layers, d_model %d, %d heads\n", c.name.c_str(), r.modelDir.c_str(),
                c.hasEncoder() ? c.encoderLayers : 0, c.decoderLayers, c.dModel, c.heads);
    std::printf("source    %d words, %zu tokens: %s\n", wordCount(r.src), r.srcTokens, r.src.c_str());
    std::printf("output    %lld tokens (<eos> included): %s\n", static_cast<long long>(r.last.outputTokens),
                r.output.c_str());
    std::printf("snapshot  %.3f MB of attention and log-probabilities\n",
                static_cast<double>(r.last.snapshotBytes) / 1e6);
    std::printf("runs      %d timed after %d warm-up\n\n", r.plan.runs, r.plan.warmup);
    printTable(r.rows);
}

void printJson(const Report& r) {
    const auto& c = r.config;
    nlohmann::ordered_json j;
    j["machine"] = {{"cpu", r.machine.cpu},
                    {"device", r.device},
                    {"threads", r.machine.threads},
                    {"openblas", r.machine.openblas},
                    {"torch", r.machine.torch}};
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
    j["output_tokens"] = r.last.outputTokens;
    j["snapshot_bytes"] = r.last.snapshotBytes;
    j["warmup"] = r.plan.warmup;
    j["runs"] = r.plan.runs;
    j["rows"] = nlohmann::ordered_json::array();
    for (const auto& row : r.rows)
        j["rows"].push_back(toJson(row));
    std::cout << j.dump(2) << "\n";
}

// Bounds keep a typo (an extra zero or two) from turning a benchmark into an afternoon.
int boundedInt(const Args& a, const std::string& key, int fallback, int lo, int hi) {
    const auto v = a.getInt(key, fallback);
    if (v < lo || v > hi)
        throw UsageError(key + " expects a number from " + std::to_string(lo) + " to " + std::to_string(hi) +
                         ", got " + std::to_string(v));
    return static_cast<int>(v);
}

} // namespace

int runBench(const std::vector<std::string>& args) {
    try {
        const Args a(args, {"--model", "--src", "--runs", "--warmup", "--threads"},
                     {"--json", "--help", "-h"});
        if (a.has("--help") || a.has("-h")) {
            std::cout << kHelp;
            return 0;
        }
        Report report;
        report.plan.runs = boundedInt(a, "--runs", report.plan.runs, 1, 100000);
        report.plan.warmup = boundedInt(a, "--warmup", report.plan.warmup, 0, 100000);
        const int threads = a.has("--threads") ? boundedInt(a, "--threads", 0, 1, 1024) : 0;
        report.src = a.get("--src", kDefaultSource);
        if (wordCount(report.src) == 0)
            throw UsageError("--src is empty");
        report.modelDir = a.get("--model", ATTNSCOPE_DEFAULT_MODEL_DIR);

        const auto model = core::Model::load(report.modelDir);
        core::configureThreads(threads); // after load, which sets every core; 0 keeps that
        core::Session session(model);
        const auto results = repeat(report.plan, [&] { return translateOnce(session, report.src); });

        report.machine = thisMachine(); // after configureThreads
        report.device = model->deviceName();
        report.config = model->config();
        report.srcTokens =
            (report.config.hasEncoder() ? model->sourceTokens(report.src) : model->targetTokens(report.src))
                .size();
        report.output = session.decodedText();
        report.last = results.back();
        report.rows = translationRows(results);
        if (a.has("--json"))
            printJson(report);
        else
            printText(report);
        return 0;
    } catch (const UsageError& e) {
        std::cerr << "attnscope bench: " << e.what() << " (see attnscope bench --help)\n";
        return 2;
    } catch (const core::Error& e) {
        std::cerr << "attnscope bench: " << e.what() << "\n";
        return 2;
    }
}
