#include "app/bench/BenchSoak.h"

#include "core/model/Model.h"
#include "core/run/AttentionSnapshot.h"
#include "core/run/Session.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <string>

#include <unistd.h>

namespace {

constexpr int kSampleEvery = 100; // analyses between samples
constexpr double kWarmupShare = 0.1;

long residentKb() {
    std::ifstream statm("/proc/self/statm");
    long size = 0, resident = 0;
    statm >> size >> resident;
    return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

int openDescriptors() {
    int n = 0;
    std::error_code ec;
    for (auto it = std::filesystem::directory_iterator("/proc/self/fd", ec);
         !ec && it != std::filesystem::directory_iterator(); it.increment(ec))
        ++n;
    return n;
}

int processThreads() {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("Threads:", 0) == 0)
            return std::stoi(line.substr(8));
    return 0;
}

// A new sentence each turn, 3 to 12 words, so every analysis allocates blocks of a different shape.
std::string sentence(std::mt19937& rng) {
    static const char* words[] = {"the",   "old",   "red",  "house", "is",    "near",    "a",    "river",
                                  "where", "small", "dogs", "play",  "every", "morning", "with", "children"};
    std::string s;
    const int n = 3 + static_cast<int>(rng() % 10);
    for (int i = 0; i < n; ++i)
        s += (i ? " " : "") + std::string(words[rng() % std::size(words)]);
    return s + ".";
}

} // namespace

bool SoakReport::fdsFlat() const {
    return curve.size() < 2 || curve.back().fds <= curve.front().fds;
}

bool SoakReport::threadsFlat() const {
    return curve.size() < 2 || curve.back().threads <= curve.front().threads;
}

SoakReport measureSoak(const std::vector<std::string>& modelDirs, int steps, int analyses,
                       const std::function<void(const std::string&)>& progress) {
    SoakReport r;
    std::vector<std::unique_ptr<core::Session>> sessions;
    for (const auto& dir : modelDirs) {
        progress("soak (loading " + dir + ")");
        auto model = core::Model::load(dir, core::DeviceChoice::Auto);
        r.models.push_back(model->config().name);
        sessions.push_back(std::make_unique<core::Session>(model));
    }
    // Steps per analysis, so that both totals are reached together.
    const int perTurn = std::max(1, (steps + analyses - 1) / std::max(1, analyses));
    r.warmupAnalyses = static_cast<int>(analyses * kWarmupShare);
    std::mt19937 rng(7);
    const auto start = std::chrono::steady_clock::now();
    for (int turn = 0; r.analyses < analyses || r.steps < steps; ++turn) {
        auto& session = *sessions[static_cast<std::size_t>(turn) % sessions.size()];
        session.analyze(sentence(rng));
        ++r.analyses;
        session.snapshot();
        for (int i = 0; i < perTurn && r.steps < steps; ++i) {
            if (session.finished())
                session.reset();
            session.step();
            ++r.steps;
            session.snapshot(); // the window takes one after every step
        }
        const bool last = r.analyses >= analyses && r.steps >= steps;
        if (r.analyses >= r.warmupAnalyses && ((r.analyses - r.warmupAnalyses) % kSampleEvery == 0 || last)) {
            SoakSample s;
            s.analyses = r.analyses;
            s.steps = r.steps;
            s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            s.residentKb = residentKb();
            s.fds = openDescriptors();
            s.threads = processThreads();
            r.curve.push_back(s);
            progress("soak (" + std::to_string(r.analyses) + " analyses, " + std::to_string(r.steps) +
                     " steps, " + std::to_string(s.residentKb / 1024) + " MB)");
        }
    }
    if (!r.curve.empty()) {
        const auto first = static_cast<double>(r.curve.front().residentKb);
        r.growthPercent = 100.0 * (static_cast<double>(r.curve.back().residentKb) - first) / first;
    }
    return r;
}

void printText(const SoakReport& r) {
    std::string models;
    for (const auto& m : r.models)
        models += (models.empty() ? "" : ", ") + m;
    std::printf("models    %s, taking turns\n", models.c_str());
    std::printf("work      %d analyses and %d decode steps, a snapshot after each; warm-up %d analyses\n",
                r.analyses, r.steps, r.warmupAnalyses);
    std::printf("%10s %8s %9s %12s %6s %8s\n", "analyses", "steps", "seconds", "resident MB", "fds",
                "threads");
    for (const auto& s : r.curve)
        std::printf("%10d %8d %9.1f %12.1f %6d %8d\n", s.analyses, s.steps, s.seconds,
                    static_cast<double>(s.residentKb) / 1024.0, s.fds, s.threads);
    std::printf("resident  %+.2f %% after warm-up (limit %.0f %%): %s\n", r.growthPercent, r.limitPercent,
                r.memoryFlat() ? "met" : "NOT MET");
    std::printf("fds       %s; threads %s\n", r.fdsFlat() ? "flat" : "GREW",
                r.threadsFlat() ? "flat" : "GREW");
}

nlohmann::ordered_json toJson(const SoakReport& r) {
    nlohmann::ordered_json j;
    j["models"] = r.models;
    j["analyses"] = r.analyses;
    j["steps"] = r.steps;
    j["warmup_analyses"] = r.warmupAnalyses;
    j["curve"] = nlohmann::ordered_json::array();
    for (const auto& s : r.curve)
        j["curve"].push_back({{"analyses", s.analyses},
                              {"steps", s.steps},
                              {"seconds", s.seconds},
                              {"resident_kb", s.residentKb},
                              {"fds", s.fds},
                              {"threads", s.threads}});
    j["resident_growth_percent"] = r.growthPercent;
    j["resident_limit_percent"] = r.limitPercent;
    j["memory_flat"] = r.memoryFlat();
    j["fds_flat"] = r.fdsFlat();
    j["threads_flat"] = r.threadsFlat();
    return j;
}
