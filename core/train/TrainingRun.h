#pragma once
// The one training loop, for `attnscope train` and the window's Train tab alike: steps, evaluation every
// `eval_every`, a log.csv row every `logEvery` steps (never two for one step), a checkpoint every
// `checkpoint_every`, stop and pause between two steps, and what a finished or stopped run leaves behind.
// A run stopped, killed or crashed resumes from its last checkpoint (`attnscope train --resume --out DIR`,
// or Continue in the Train tab).

#include "core/train/Trainer.h"

#include <functional>
#include <memory>
#include <string>

namespace core {

struct RunOptions {
    int64_t logEvery = 10; ///< steps between log rows (and onLogged); evaluations and the last step log too
    int64_t probeEvery =
        0; ///< steps between onProbe calls, plus one at the start and one at the end; 0: none
    bool exportOnStop = false; ///< a stopped run also writes model/ (the window: a stopped run can be opened)
};

/// One log row as it is written.
struct RunProgress {
    TrainStats stats;
    int64_t total = 0;    ///< the step the run ends at
    double metric = -1.0; ///< evaluate()'s figure when just measured, else < 0
    bool last = false;    ///< the finished run's final row (after its checkpoint and model/ are written)
    HeadWatch heads;      ///< the best heads' scores, for the induction task
};

/// Everything optional; called on the thread that runs the loop.
struct RunCallbacks {
    std::function<bool()> stopRequested;  ///< polled before every step
    std::function<bool()> pauseRequested; ///< while true the loop waits (polling stop every 20 ms)
    std::function<void(const TrainStats&)> onStep;
    std::function<void(const RunProgress&)> onLogged;
    std::function<void(int64_t step)> onProbe; ///< the caller reads trainer().currentModel()
};

enum class RunEnd { Completed, Stopped };

class TrainingRun {
public:
    /// A fresh run of the recipe in outDir. Throws InputError when outDir already holds a run (resume it
    /// instead), IoError when it cannot be created or written, ConfigError for a bad recipe.
    static std::unique_ptr<TrainingRun> start(const TrainRecipe& recipe, const std::string& outDir);
    /// Continues the run saved in outDir (Trainer::setSteps moves its end). Throws ModelError when there
    /// is no checkpoint.
    static std::unique_ptr<TrainingRun> resume(const std::string& outDir);
    /// Whether outDir holds a checkpoint to resume (checkpoint/, or checkpoint.old/ after a crash
    /// between its two renames).
    static bool hasCheckpoint(const std::string& outDir);

    /// Trains to the end or until stopRequested. Either way a checkpoint of the last step is on disk when
    /// it returns; a completed run has model/ and its final evaluation (finalMetric()). Errors propagate.
    RunEnd run(const RunCallbacks& callbacks, const RunOptions& options = {});

    Trainer& trainer() { return *trainer_; }
    const Trainer& trainer() const { return *trainer_; }
    /// The completed run's final evaluation, < 0 before.
    double finalMetric() const { return finalMetric_; }
    std::string logPath() const;

private:
    explicit TrainingRun(std::unique_ptr<Trainer> trainer);
    std::unique_ptr<Trainer> trainer_;
    double finalMetric_ = -1.0;
};

} // namespace core
