#include "ui/train/TrainingWorker.h"

#include "core/base/Errors.h"
#include "core/model/Model.h"
#include "core/run/Session.h"
#include "core/train/TrainLog.h"
#include "core/train/TrainingRun.h"

namespace ui {

TrainingWorker::TrainingWorker(core::TrainRecipe recipe, QString outDir, QString probe, int probeEvery)
    : recipe_(std::move(recipe)), outDir_(std::move(outDir)), probe_(std::move(probe)),
      probeEvery_(std::max(1, probeEvery)) {}

TrainingWorker* TrainingWorker::resuming(core::TrainRecipe recipe, QString outDir, QString probe,
                                         int probeEvery) {
    auto* w = new TrainingWorker(std::move(recipe), std::move(outDir), std::move(probe), probeEvery);
    w->resume_ = true;
    return w;
}

TrainingWorker::~TrainingWorker() = default;

void TrainingWorker::run() {
    try {
        run_ = resume_ ? core::TrainingRun::resume(outDir_.toStdString())
                       : core::TrainingRun::start(recipe_, outDir_.toStdString());
        const auto metric = QString::fromStdString(run_->trainer().metricName());
        if (resume_) // the curve so far: the log as the resume left it, up to the checkpoint
            for (const auto& row : core::TrainLog::read(run_->logPath()))
                Q_EMIT progress(TrainProgress{row.stats.step, run_->trainer().recipe().steps, row.stats.loss,
                                              row.stats.tokensPerSecond, row.stats.elapsedSeconds,
                                              row.accuracy, row.heads.induction, row.heads.previous, metric});
        core::RunCallbacks cb;
        cb.stopRequested = [this] { return stopped_.load(); };
        cb.pauseRequested = [this] {
            const bool hold = paused_.load() && !stopped_.load();
            if (hold && !holding_)
                Q_EMIT held(run_->trainer().stats().step);
            holding_ = hold;
            return hold;
        };
        cb.onLogged = [this, metric](const core::RunProgress& p) {
            const auto& s = p.stats;
            Q_EMIT progress(TrainProgress{s.step, p.total, s.loss, s.tokensPerSecond, s.elapsedSeconds,
                                          p.metric, p.heads.induction, p.heads.previous, metric});
        };
        // The probe is teacher-forced on the task's answer, which only generated tasks can give; a
        // classifier's probe is its answer to the probe text.
        if (recipe_.makeTask().generated() || recipe_.task == core::TaskKind::Classification)
            cb.onProbe = [this](int64_t step) { probe(step); };
        core::RunOptions options;
        options.probeEvery = probeEvery_;
        options.exportOnStop = true; // a stopped run can be opened as a model
        completed_ = run_->run(cb, options) == core::RunEnd::Completed;
        Q_EMIT finished(completed_);
    } catch (const std::exception& e) {
        error_ = QString::fromStdString(e.what());
        Q_EMIT failed(error_);
        Q_EMIT finished(false);
    }
}

void TrainingWorker::probe(int64_t step) {
    const auto model = run_->trainer().currentModel();
    // Through a Session, as the window runs any family: the Transformer, the GRU translator, a classifier.
    core::Session session(model);
    if (recipe_.task == core::TaskKind::Classification) {
        session.analyze(probe_.toStdString());
    } else {
        std::vector<int64_t> src, tgt;
        for (const auto& t : model->sourceTokens(probe_.toStdString()))
            src.push_back(t.id);
        // Teacher-forced on the right answer, so every frame shows the same rows.
        for (const auto& t : model->targetTokens(recipe_.makeTask().solve(probe_.toStdString())))
            tgt.push_back(t.id);
        if (!model->config().hasEncoder()) {
            // A decoder-only model reads what it was trained on, "<bos> source <eos> answer", as one
            // sequence: its self-attention is where the task shows (the induction stripe, say).
            src.push_back(model->targetTokenizer().vocab().eos());
            src.insert(src.end(), tgt.begin() + 1, tgt.end()); // the answer without its <bos>
        }
        session.analyzeIds(src, tgt);
    }
    Q_EMIT probed(step, std::make_shared<core::AttentionSnapshot>(session.snapshot()));
}

} // namespace ui
