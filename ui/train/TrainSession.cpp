#include "ui/train/TrainSession.h"

#include "core/base/Errors.h"
#include "core/train/Trainer.h"
#include "core/train/TrainingRun.h"
#include "ui/base/AppSettings.h"
#include "ui/train/RunFolders.h"
#include "ui/train/TrainPresets.h"
#include "ui/train/TrainingThread.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>

namespace ui {

TrainSession::TrainSession(QObject* parent) : QObject(parent) {
    qRegisterMetaType<TrainProgress>();
    qRegisterMetaType<std::shared_ptr<const core::AttentionSnapshot>>();
    run_ = new TrainingThread(this);
    connect(run_, &TrainingThread::progress, this, [this](const TrainProgress& p) {
        lastStep_ = p.step;
        film_.addRow(p);
        Q_EMIT progressed(p);
    });
    connect(run_, &TrainingThread::probed, this,
            [this](int64_t step, std::shared_ptr<const core::AttentionSnapshot> snap) {
                film_.addFrame(step, std::move(snap));
                Q_EMIT probed();
            });
    connect(run_, &TrainingThread::failed, this, &TrainSession::failed);
    connect(run_, &TrainingThread::finished, this, &TrainSession::onFinished);
    connect(run_, &TrainingThread::held, this, &TrainSession::held);
}

TrainSession::~TrainSession() {
    run_->stopAndWait(); // before the film goes: the run saves itself as it stops
}

QString TrainSession::runsFolder() const {
    return !runsFolder_.isEmpty() ? runsFolder_ : RunFolders::defaultFolder();
}

void TrainSession::start(const core::TrainRecipe& recipe, const QString& preset, bool tiny) {
    const QString base =
        QDir(runsFolder())
            .filePath(QStringLiteral("%1-%2").arg(
                preset, QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-hhmmss"))));
    // Two runs started within a second get folders of their own.
    runDir_ = base;
    for (int n = 2; QFileInfo::exists(runDir_); ++n)
        runDir_ = base + QStringLiteral("-%1").arg(n);
    runPreset_ = preset;
    runTiny_ = tiny;
    runSteps_ = recipe.steps;
    launch(new TrainingWorker(recipe, runDir_, TrainPresets::probeFor(recipe.task),
                              TrainPresets::probeEvery(recipe.steps)),
           recipe);
}

bool TrainSession::resume(const QString& dir, core::TrainRecipe* recipe, QString* error) {
    if (!core::TrainingRun::hasCheckpoint(dir.toStdString())) {
        *error = tr("%1 holds no checkpoint of a training run").arg(QDir::toNativeSeparators(dir));
        return false;
    }
    try {
        *recipe = core::Trainer::savedRecipe(dir.toStdString());
    } catch (const core::Error& e) {
        *error = QString::fromStdString(e.what());
        return false;
    }
    runDir_ = dir;
    runPreset_.clear(); // to the run's own end; `attnscope train --resume --steps N` extends a run
    launch(TrainingWorker::resuming(*recipe, runDir_, TrainPresets::probeFor(recipe->task),
                                    TrainPresets::probeEvery(recipe->steps)),
           *recipe);
    return true;
}

void TrainSession::launch(TrainingWorker* worker, const core::TrainRecipe& recipe) {
    AppSettings::setLastRun(runDir_);
    film_.clear();
    lastStep_ = 0;
    // The previous run has ended (training() is false): its thread and worker are freed as this one starts.
    running_ = true;
    run_->start(worker);
    Q_EMIT started(recipe.steps);
}

void TrainSession::togglePause() {
    auto* worker = run_->worker();
    if (!worker)
        return;
    if (worker->paused())
        worker->resume();
    else
        worker->pause();
}

void TrainSession::stop() {
    if (auto* worker = run_->worker())
        worker->stop();
}

bool TrainSession::paused() const {
    return run_->worker() && run_->worker()->paused();
}

bool TrainSession::save(QString* error) {
    const auto* worker = run_->worker();
    if (!worker)
        return true;
    // The run saves itself when it stops, on its own thread; wait for that.
    run_->stopAndWait();
    // The run's finished signal may still be queued; wind the run up here, and it will find nothing to do.
    if (running_)
        onFinished(worker->completed());
    if (!worker->error().isEmpty()) {
        if (error)
            *error = worker->error();
        return false;
    }
    return true;
}

void TrainSession::onFinished(bool completed) {
    run_->join();
    if (!running_)
        return; // save() has already wound this run up
    running_ = false;
    Q_EMIT finished(completed, run_->worker()->error());
}

} // namespace ui
