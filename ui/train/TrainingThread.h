#pragma once
// The training run's thread: one TrainingWorker at a time on a QThread of its own, its signals handed on
// queued to the GUI thread. Signals an earlier worker left queued when a new run starts are dropped, so a
// page never mixes two runs' rows.

#include "ui/train/TrainingWorker.h"

#include <QObject>

#include <memory>

class QThread;

namespace ui {

class TrainingThread : public QObject {
    Q_OBJECT
public:
    explicit TrainingThread(QObject* parent = nullptr);
    /// Stops the run and waits for its thread: the run saves itself as it stops.
    ~TrainingThread() override;

    /// Frees the previous run's thread and worker (whose run holds a network, its optimiser state and its
    /// data; that run must have ended) and runs `worker`, taken over, on a new thread.
    void start(TrainingWorker* worker);
    /// Asks the run to stop, and waits until its thread has ended.
    void stopAndWait();
    /// Waits for the thread of a run that has already said it finished.
    void join();
    /// The current run's worker, or null before the first.
    TrainingWorker* worker() const { return worker_; }

Q_SIGNALS:
    void progress(const ui::TrainProgress& p);
    void probed(int64_t step, std::shared_ptr<const core::AttentionSnapshot> snapshot);
    void failed(const QString& message);
    void finished(bool completed);
    void held(int64_t step);

private:
    QThread* thread_ = nullptr;
    TrainingWorker* worker_ = nullptr; // no parent: it lives on the run's thread
};

} // namespace ui
