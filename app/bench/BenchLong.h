#pragma once
// The fourth section of `attnscope bench`: a long input through GPT-2 small's shape in the window's
// attention page. A text of T tokens (2,048 by default) until the grid and the heatmap have repainted, then
// another layer and head in the detail view until the page has repainted, each with the longest the GUI
// thread froze on the way; the snapshot's size and the process's peak memory; and the targets long inputs
// are held to. A QApplication must exist.

#include "app/bench/BenchMeasure.h"

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

/// One analysis takes seconds at 2,048 tokens, so this section runs fewer times than the others.
constexpr Plan kLongPlan{1, 3};
constexpr int kLongDefaultLength = 2048;

struct LongReport {
    std::string modelName;
    std::string shape;   ///< the architecture and sizes in a line
    std::string weights; ///< "random (seed 1)"
    std::string note;    ///< "max_len raised from 1024 to 2048", or empty
    int length = 0;      ///< T asked for
    int tokens = 0;      ///< tokens of the snapshot the page showed last (T when all went well)
    std::string kind;
    int pageWidth = 0;
    int pageHeight = 0;
    Plan plan;
    /// The two selections the detail view alternates between, as {layer, head}.
    std::vector<std::pair<int, int>> heads;
    std::size_t attentionBytes = 0;    ///< the snapshot's attention blocks, as stored
    std::size_t denseBytes = 0;        ///< what the same blocks take as float32 in every cell
    std::size_t logProbBytes = 0;      ///< the next-token log-probabilities
    std::size_t peakResidentBytes = 0; ///< the process's peak resident memory when the section ended
    std::vector<Row> rows;
    std::vector<Target> targets;
};

/// Makes GPT-2 small's shape on random weights with max_len raised to fit `length` (not timed), or loads the
/// decoder-only model in `modelDir` when one is given (a GPT-2 checkpoint, say; its max_len must fit), then
/// times the runs of `plan`. `threads` as for core::configureThreads. Throws core::Error when the page
/// cannot show the text.
LongReport measureLong(int length, const Plan& plan, int threads,
                       const std::function<void(const std::string&)>& progress,
                       const std::string& modelDir = {});

void printText(const LongReport& r);
nlohmann::ordered_json toJson(const LongReport& r);
