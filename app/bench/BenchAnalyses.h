#pragma once
// `attnscope bench --only analyses`: what the Rollout, Ablation and Compare pages cost. Rollout of GPT-2
// small's shape at T = 1,024 after its analysis (target 100 ms); a head switched off in a run of the default
// model at T = 64 (a 64-token source, a 64-token target teacher-forced): the run again with the head off, its
// snapshot and the next-token effect, as the worker does before the window can repaint (target 20 ms), and
// the greedy outputs with and without that follow; attention flow of the default model at T = 64 (encoder
// and cross); the value-weighted blocks at both sizes; and a sweep of every head of the default model.

#include "app/bench/BenchMeasure.h"

#include <functional>
#include <string>
#include <vector>

struct AnalysesCase {
    std::string id;    ///< "rollout-gpt2", "ablation-default", …
    std::string model; ///< the model's name and shape
    int length = 0;    ///< T
    std::vector<Row> rows;
    std::vector<Target> targets; ///< each against its limit (none where the issue asks only for a figure)
};

struct AnalysesReport {
    Plan plan;
    std::vector<AnalysesCase> cases;
};

AnalysesReport measureAnalyses(const std::string& defaultModelDir, const Plan& plan, int threads,
                               const std::function<void(const std::string&)>& progress);
void printText(const AnalysesReport& r);
nlohmann::ordered_json toJson(const AnalysesReport& r);
