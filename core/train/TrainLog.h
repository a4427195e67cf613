#pragma once
// A training run's log.csv: step,loss,lr,tokens_per_s,elapsed_s,accuracy,induction,previous_token, one row
// per logged step, numbers written the same whatever the locale. A column is empty where nothing was
// measured: accuracy at evaluations only, the two head scores only for the induction task.

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

/// The best heads of the model at a logged step, on repeated random sequences (core::analyzeHeads): the
/// moment an induction head forms is the moment `induction` jumps. < 0 when not measured.
struct HeadWatch {
    double induction = -1.0; ///< the highest induction score of any decoder self-attention head
    double previous = -1.0;  ///< the highest previous-token score
    bool measured() const { return induction >= 0; }
};

/// One row of log.csv.
struct TrainLogRow {
    TrainStats stats;
    double accuracy = -1.0; ///< < 0 when the row has none
    HeadWatch heads;
};

class TrainLog {
public:
    /// Appends a row (the header first when the file is new; a log of an older program gets the current
    /// header). Throws IoError when it cannot be written.
    static void append(const std::string& path, const TrainStats& stats, double accuracy,
                       const HeadWatch& heads = {});
    /// Drops every row after `step` (they describe steps a resumed run does again) and a torn last line.
    static void keepUpTo(const std::string& path, int64_t step);
    /// Every row that reads back; empty when there is no file.
    static std::vector<TrainLogRow> read(const std::string& path);
    /// The first row whose induction score reached `threshold`, or −1.
    static int64_t formedAt(const std::vector<TrainLogRow>& rows, double threshold = 0.5);
};

} // namespace core
