#include "ui/train/TrainingThread.h"

#include <QThread>

namespace ui {

TrainingThread::TrainingThread(QObject* parent) : QObject(parent) {}

TrainingThread::~TrainingThread() {
    stopAndWait();
    delete worker_;
}

void TrainingThread::start(TrainingWorker* worker) {
    join();
    delete worker_;
    delete thread_;
    thread_ = new QThread(this);
    worker_ = worker;
    worker_->moveToThread(thread_);
    connect(thread_, &QThread::started, worker_, &TrainingWorker::run);
    // Each forward checks that its worker is still the current one.
    connect(
        worker_, &TrainingWorker::progress, this,
        [this, worker](const TrainProgress& p) {
            if (worker == worker_)
                Q_EMIT progress(p);
        },
        Qt::QueuedConnection);
    connect(
        worker_, &TrainingWorker::probed, this,
        [this, worker](int64_t step, std::shared_ptr<const core::AttentionSnapshot> snap) {
            if (worker == worker_)
                Q_EMIT probed(step, std::move(snap));
        },
        Qt::QueuedConnection);
    connect(
        worker_, &TrainingWorker::failed, this,
        [this, worker](const QString& m) {
            if (worker == worker_)
                Q_EMIT failed(m);
        },
        Qt::QueuedConnection);
    connect(
        worker_, &TrainingWorker::held, this,
        [this, worker](int64_t step) {
            if (worker == worker_)
                Q_EMIT held(step);
        },
        Qt::QueuedConnection);
    connect(
        worker_, &TrainingWorker::finished, this,
        [this, worker](bool completed) {
            if (worker == worker_)
                Q_EMIT finished(completed);
        },
        Qt::QueuedConnection);
    thread_->start();
}

void TrainingThread::stopAndWait() {
    if (worker_)
        worker_->stop();
    join();
}

void TrainingThread::join() {
    if (thread_) {
        thread_->quit();
        thread_->wait();
    }
}

} // namespace ui
