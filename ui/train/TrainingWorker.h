#pragma once
// Runs a core::TrainingRun on its own thread for the Train tab: the one training loop, paused and stopped
// between two steps, reporting each log row and, every few steps, the attention of a fixed probe example,
// so the window can show a pattern forming while the model learns. Checkpoints, the log and the model
// directory are written on this thread by the run itself, so a crash loses at most checkpoint_every steps.

#include "core/run/AttentionSnapshot.h"
#include "core/train/TrainRecipe.h"

#include <QObject>
#include <QString>

#include <atomic>
#include <memory>

namespace core {
class TrainingRun;
}

namespace ui {

struct TrainProgress {
    int64_t step = 0;
    int64_t total = 0;
    double loss = 0.0;
    double tokensPerSecond = 0.0;
    double elapsedSeconds = 0.0;
    double accuracy = -1.0;  ///< the run's metric when just measured, else negative
    double induction = -1.0; ///< the best head's induction score (the induction task), else negative
    double previous = -1.0;  ///< the best head's previous-token score (the induction task), else negative
    /// What `accuracy` measures: "exact match" (generated tasks), "chrF" (÷ 100, translation) or
    /// "perplexity" (a language model).
    QString metric;
};

class TrainingWorker : public QObject {
    Q_OBJECT
public:
    /// A fresh run of `recipe` in outDir. probe: the source whose attention is captured every
    /// probeEvery steps (generated tasks only).
    TrainingWorker(core::TrainRecipe recipe, QString outDir, QString probe, int probeEvery);
    /// Continues the run saved in outDir (its recipe is `recipe`, as read from it) to its end.
    static TrainingWorker* resuming(core::TrainRecipe recipe, QString outDir, QString probe, int probeEvery);
    ~TrainingWorker() override;

    /// Thread-safe flags, read between two steps.
    void pause() { paused_ = true; }
    void resume() { paused_ = false; }
    void stop() { stopped_ = true; }
    bool paused() const { return paused_; }

    /// Runs until done or stopped (call on the worker thread, e.g. connected to QThread::started). A
    /// stopped run is saved (checkpoint and model directory) before this returns.
    void run();
    /// Whether the run reached its end (read once run() has returned).
    bool completed() const { return completed_; }
    /// Why the run failed, empty when it did not.
    QString error() const { return error_; }
    QString outDir() const { return outDir_; }

Q_SIGNALS:
    void progress(ui::TrainProgress p);
    /// The probe's attention after `step` steps.
    void probed(int64_t step, std::shared_ptr<const core::AttentionSnapshot> snapshot);
    void failed(const QString& message);
    void finished(bool completed);
    /// Paused: the loop has stopped between two steps, after `step`, and waits. Once per pause, after
    /// everything the steps before it sent.
    void held(int64_t step);

private:
    void probe(int64_t step);

    core::TrainRecipe recipe_;
    QString outDir_;
    QString probe_;
    int probeEvery_;
    bool resume_ = false;
    std::unique_ptr<core::TrainingRun> run_;
    QString error_;
    std::atomic<bool> paused_{false};
    std::atomic<bool> stopped_{false};
    std::atomic<bool> completed_{false};
    bool holding_ = false; // the loop waits in a pause (read and written on the run's thread only)
};

} // namespace ui

Q_DECLARE_METATYPE(ui::TrainProgress)
Q_DECLARE_METATYPE(std::shared_ptr<const core::AttentionSnapshot>)
