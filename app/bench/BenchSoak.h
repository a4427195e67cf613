#pragma once
// `attnscope bench --only soak`: a long session in one process, for leaks rather than speed. Two models
// take turns; each turn re-analyses a new text and decodes a few steps, taking the snapshot the window would
// show after each, until 10,000 steps and 2,000 analyses are done. Resident memory, open file descriptors
// and threads are sampled along the way: after a warm-up the memory must stay within 5 % and the
// descriptors and threads must not grow.

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <vector>

struct SoakSample {
    int analyses = 0;
    int steps = 0;
    double seconds = 0.0;
    long residentKb = 0;
    int fds = 0;
    int threads = 0;
};

struct SoakReport {
    std::vector<std::string> models;
    int steps = 0;    ///< decode steps taken
    int analyses = 0; ///< analyses of a new text
    int warmupAnalyses = 0;
    std::vector<SoakSample> curve; ///< every 100 analyses from the end of the warm-up, and at the end
    double growthPercent = 0.0;    ///< resident memory at the end against the first sample after warm-up
    double limitPercent = 5.0;
    bool memoryFlat() const { return growthPercent <= limitPercent; }
    bool fdsFlat() const;     ///< the last sample has no more descriptors than the first after warm-up
    bool threadsFlat() const; ///< and no more threads
};

/// Runs the soak over the model folders (taking turns); `progress` hears what is happening.
SoakReport measureSoak(const std::vector<std::string>& modelDirs, int steps, int analyses,
                       const std::function<void(const std::string&)>& progress);
void printText(const SoakReport& r);
nlohmann::ordered_json toJson(const SoakReport& r);
