#pragma once
// The pieces every `attnscope bench` measurement is made of: repeat() runs a body after warm-up,
// summarize() reduces the samples to median/min/max, and a Row carries the result to the printers.

#include <nlohmann/json.hpp>

#include <chrono>
#include <string>
#include <vector>

using BenchClock = std::chrono::steady_clock;

inline double msSince(BenchClock::time_point t0) {
    return std::chrono::duration<double, std::milli>(BenchClock::now() - t0).count();
}

/// The spread of one measurement over the timed runs.
struct Stat {
    double median = 0.0;
    double min = 0.0;
    double max = 0.0;
    int runs = 0;
};

/// Median, min and max of the samples (all zero when there are none).
Stat summarize(std::vector<double> samples);

/// The same per-run field of every run, summarized.
template <class Result, class Field> Stat summarize(const std::vector<Result>& results, Field field) {
    std::vector<double> samples;
    samples.reserve(results.size());
    for (const auto& r : results)
        samples.push_back(field(r));
    return summarize(std::move(samples));
}

/// A value that does not vary between runs (a size in bytes, say), in the same shape as a timing.
Stat constantStat(double value, int runs);

struct Plan {
    int warmup = 3;
    int runs = 20;
};

// The first runs through a model pay for the allocator's first blocks, OpenBLAS's buffers and cold caches;
// the warm-up runs absorb that, so the timed runs show the steady state a user sees from the second
// request on.
template <class Body> auto repeat(const Plan& plan, Body body) -> std::vector<decltype(body())> {
    for (int i = 0; i < plan.warmup; ++i)
        body();
    std::vector<decltype(body())> results;
    results.reserve(static_cast<std::size_t>(plan.runs));
    for (int i = 0; i < plan.runs; ++i)
        results.push_back(body());
    return results;
}

/// One line of a table: a stable id for scripts, a label for people, and the spread.
struct Row {
    std::string id;
    std::string label;
    Stat stat;
    std::string unit = "ms";
};

nlohmann::ordered_json toJson(const Row& r);
nlohmann::ordered_json toJson(const std::vector<Row>& rows);

/// A limit a section is held to and what it measured against it.
struct Target {
    std::string id;
    std::string label; ///< the limit as a person reads it: "longest stall <= 100 ms"
    double limit = 0.0;
    double value = 0.0; ///< the worst the runs gave, in unit
    std::string unit;
    bool met() const { return value <= limit; }
};

/// A number as the tables print it: three significant digits or so (0.412, 12.3, 1234).
std::string number(double v);
/// One table cell: "median [min-max]", or the median alone for a size in MB (it does not vary).
std::string cellText(const Row& r);

/// The rows one under the other: label, then median, min and max.
void printRows(const std::vector<Row>& rows);

/// Where the numbers were measured, so a table pasted into an issue carries its context.
struct Machine {
    std::string cpu;
    std::string device; // where the models run: "cpu", "cuda:0"
    int threads = 0;
    std::string openblas; // empty when LibTorch does not call OpenBLAS
    std::string torch;
    std::string ompWait; // libgomp's idle policy: "GOMP_SPINCOUNT=10000" (the launcher's), or the user's
    std::string packed;  // what multiplies by packed weights: "oneDNN 2.6.3", or why nothing does
};

/// Call after the thread count is set: it reports the current one.
Machine thisMachine();
nlohmann::ordered_json toJson(const Machine& m);
