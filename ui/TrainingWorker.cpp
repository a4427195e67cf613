#include "ui/TrainingWorker.h"

#include "core/Errors.h"
#include "core/Model.h"
#include "core/Trainer.h"

#include <QThread>

namespace ui {

namespace {
constexpr int kReportEvery = 5; // steps between progress signals: often enough for a smooth curve
} // namespace

TrainingWorker::TrainingWorker(core::TrainRecipe recipe, QString outDir, QString probe, int probeEvery)
    : recipe_(std::move(recipe)), outDir_(std::move(outDir)), probe_(std::move(probe)),
      probeEvery_(std::max(1, probeEvery)) {}

TrainingWorker::~TrainingWorker() = default;

void TrainingWorker::run() {
    running_ = true;
    try {
        if (!trainer_)
            trainer_ = std::make_unique<core::Trainer>(recipe_, outDir_.toStdString());
        probe(); // the untrained pattern, as the first frame of the film
        while (!trainer_->done() && !stopped_) {
            if (paused_) {
                QThread::msleep(20);
                continue;
            }
            const auto s = trainer_->trainStep();
            const bool eval = s.step % recipe_.evalEvery == 0 || trainer_->done();
            if (s.step % kReportEvery == 0 || eval) {
                TrainProgress p{s.step, recipe_.steps, s.loss, s.tokensPerSecond, s.elapsedSeconds, -1.0};
                if (eval)
                    p.accuracy = trainer_->evaluate(recipe_.evalExamples, core::Trainer::kEvalSeed);
                trainer_->log(p.accuracy);
                Q_EMIT progress(p);
            }
            if (s.step % probeEvery_ == 0 || trainer_->done())
                probe();
        }
    } catch (const std::exception& e) {
        running_ = false;
        Q_EMIT failed(QString::fromStdString(e.what()));
        Q_EMIT finished(false);
        return;
    }
    running_ = false;
    Q_EMIT finished(trainer_->done());
}

void TrainingWorker::probe() {
    const auto model = trainer_->currentModel();
    std::vector<int64_t> src, tgt;
    for (const auto& t : model->sourceTokens(probe_.toStdString()))
        src.push_back(t.id);
    // Teacher-forced on the right answer, so every frame shows the same rows.
    for (const auto& t : model->targetTokens(recipe_.makeTask().solve(probe_.toStdString())))
        tgt.push_back(t.id);
    auto snap = std::make_shared<core::AttentionSnapshot>(model->analyze(src, tgt));
    Q_EMIT probed(trainer_->stats().step, std::move(snap));
}

bool TrainingWorker::save(QString* error) {
    if (!trainer_)
        return true; // nothing trained yet
    try {
        trainer_->saveCheckpoint();
        trainer_->exportModel();
        return true;
    } catch (const core::Error& e) {
        if (error)
            *error = QString::fromStdString(e.what());
        return false;
    }
}

} // namespace ui
