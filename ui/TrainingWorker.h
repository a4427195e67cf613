#pragma once
// Runs a core::Trainer on its own thread for the Train tab: steps in a loop that can be paused, resumed
// and stopped between two steps, reporting progress and, every few steps, the attention of a fixed probe
// example, so the window can show a pattern forming while the model learns.

#include "core/AttentionSnapshot.h"
#include "core/TrainRecipe.h"

#include <QObject>
#include <QString>

#include <atomic>
#include <memory>

namespace core {
class Trainer;
}

namespace ui {

struct TrainProgress {
    int64_t step = 0;
    int64_t total = 0;
    double loss = 0.0;
    double tokensPerSecond = 0.0;
    double elapsedSeconds = 0.0;
    double accuracy = -1.0; ///< exact match on fresh examples when just measured, else negative
};

class TrainingWorker : public QObject {
    Q_OBJECT
public:
    /// probe: the source whose attention is captured every probeEvery steps.
    TrainingWorker(core::TrainRecipe recipe, QString outDir, QString probe, int probeEvery);
    ~TrainingWorker() override;

    /// Thread-safe flags, read between two steps.
    void pause() { paused_ = true; }
    void resume() { paused_ = false; }
    void stop() { stopped_ = true; }
    bool paused() const { return paused_; }

    /// Runs until done or stopped (call on the worker thread, e.g. connected to QThread::started).
    void run();
    /// Writes a checkpoint and the model directory; call on the worker thread or after run() returned.
    bool save(QString* error);
    QString outDir() const { return outDir_; }

Q_SIGNALS:
    void progress(ui::TrainProgress p);
    /// The probe's attention after `step` steps.
    void probed(int64_t step, std::shared_ptr<const core::AttentionSnapshot> snapshot);
    void failed(const QString& message);
    void finished(bool completed);

private:
    void probe();

    core::TrainRecipe recipe_;
    QString outDir_;
    QString probe_;
    int probeEvery_;
    std::unique_ptr<core::Trainer> trainer_;
    std::atomic<bool> paused_{false};
    std::atomic<bool> stopped_{false};
    std::atomic<bool> running_{false};
};

} // namespace ui

Q_DECLARE_METATYPE(ui::TrainProgress)
Q_DECLARE_METATYPE(std::shared_ptr<const core::AttentionSnapshot>)
