#pragma once
// The third section of `attnscope bench`: a new source text reaching the window's attention page, timed from
// the text to the grid and the heatmap repainted (the worker's analysis, the queued result, the page's
// repaint), as a user waits for it after a keystroke. A QApplication must exist.

#include "app/bench/BenchMeasure.h"

#include <functional>
#include <string>
#include <vector>

/// The lengths the interactive targets are set for, and the targets: a median of at most 16 ms at 64 tokens
/// (a repaint within a 60 Hz frame) and 100 ms at 1024.
struct KeystrokeTarget {
    int length = 0;
    double medianMs = 0.0;
};
const std::vector<KeystrokeTarget>& keystrokeTargets();

/// One length: which model ran it and what it cost.
struct KeystrokeCell {
    int length = 0;
    double targetMs = 0.0;
    std::string weights; ///< the directory the weights were read from, or "random (seed 1)"
    std::string note;    ///< why the weights are random (T beyond the model's max_len), or empty
    std::vector<Row> rows;
};

struct KeystrokeReport {
    std::string modelName;
    std::string kind; ///< the attention kind the page shows, as it opens: its first
    int pageWidth = 0;
    int pageHeight = 0;
    int debounceMs = 0; ///< the typing pause the window waits for before it analyses; not in the timings
    std::vector<KeystrokeCell> cells;
};

/// Loads modelDir (not timed) and times each target length. A length beyond the model's max_len runs on
/// random weights of its shape and tokenizer with max_len raised to the length. `threads` as for
/// core::configureThreads. Throws core::Error for a bad model directory, or when no text of a length can be
/// made for the model's tokenizer.
KeystrokeReport measureKeystroke(const std::string& modelDir, const Plan& plan, int threads,
                                 const std::function<void(const std::string&)>& progress);

void printText(const KeystrokeReport& r);
nlohmann::ordered_json toJson(const KeystrokeReport& r);
