#pragma once
// A training run's log.csv: step,loss,lr,tokens_per_s,elapsed_s,accuracy, one row per logged step,
// numbers written the same whatever the locale. The last column is empty where nothing was measured.

#include <cstdint>
#include <string>
#include <vector>

namespace core {

struct TrainStats {
    int64_t step = 0;             ///< optimizer steps done
    double loss = 0.0;            ///< label-smoothed cross-entropy per target token of the last step
    double lr = 0.0;              ///< learning rate used by the last step
    double tokensPerSecond = 0.0; ///< target tokens per second over the last 20 steps
    double elapsedSeconds = 0.0;  ///< training time so far, across resumes
};

/// One row of log.csv.
struct TrainLogRow {
    TrainStats stats;
    double accuracy = -1.0; ///< < 0 when the row has none
};

class TrainLog {
public:
    /// Appends a row (the header first when the file is new). Throws IoError when it cannot be written.
    static void append(const std::string& path, const TrainStats& stats, double accuracy);
    /// Drops every row after `step` (they describe steps a resumed run does again) and a torn last line.
    static void keepUpTo(const std::string& path, int64_t step);
    /// Every row that reads back; empty when there is no file.
    static std::vector<TrainLogRow> read(const std::string& path);
};

} // namespace core
