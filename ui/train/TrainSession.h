#pragma once
// One training run of the Train tab at a time, and what it has recorded: its folder, the preset, size and
// steps it was started with, the log rows and the probe's frames (TrainFilm). The tab's controls start,
// pause, stop and continue runs through it; its curve and frames draw what it records. A run saves itself
// as it stops, on its own thread (TrainingWorker), so stopping loses nothing.

#include "core/run/AttentionSnapshot.h"
#include "core/train/TrainRecipe.h"
#include "ui/train/TrainFilm.h"
#include "ui/train/TrainingWorker.h"

#include <QObject>
#include <QString>

#include <memory>

namespace ui {

class TrainingThread;

class TrainSession : public QObject {
    Q_OBJECT
public:
    explicit TrainSession(QObject* parent = nullptr);
    /// Stops a run still going and waits for it: it saves itself as it stops.
    ~TrainSession() override;

    /// Starts `recipe` in a folder of its own under runsFolder(), named after `preset` and the time.
    void start(const core::TrainRecipe& recipe, const QString& preset, bool tiny);
    /// Continues the run saved in `dir` to its own end, from its last checkpoint; false with why when the
    /// folder holds no run. *recipe is the run's (the checkpoint's: a resume may have moved its end).
    bool resume(const QString& dir, core::TrainRecipe* recipe, QString* error);
    void togglePause();
    void stop();
    /// Until the run's finished signal is handled, not only while its thread runs.
    bool training() const { return running_; }
    bool paused() const;
    /// Ends the run, which saves it (checkpoint and model directory); false with a message when that failed.
    bool save(QString* error);

    /// Where the current (or last) run writes.
    QString runDirectory() const { return runDir_; }
    /// Where new runs get their folders: RunFolders::defaultFolder() unless set (a batch run sets its own).
    QString runsFolder() const;
    void setRunsFolder(const QString& dir) { runsFolder_ = dir; }
    /// The preset, size and steps of the run last started (empty preset: none, or a continued run).
    QString runPreset() const { return runPreset_; }
    bool runTiny() const { return runTiny_; }
    int64_t runSteps() const { return runSteps_; }
    int64_t lastStep() const { return lastStep_; }
    /// The run's log rows and frames, cleared when a run starts.
    const TrainFilm& film() const { return film_; }

Q_SIGNALS:
    /// A run started (the film is empty again): for `steps` steps.
    void started(int64_t steps);
    /// A log row, recorded in the film.
    void progressed(const ui::TrainProgress& p);
    /// A frame of the probe's attention, recorded in the film.
    void probed();
    void failed(const QString& message);
    /// The run ended and is saved, unless `error` says why not.
    void finished(bool completed, const QString& error);
    /// Paused, and now really held: the loop waits between two steps, after `step`; what the steps before
    /// it recorded has arrived.
    void held(int64_t step);

private:
    void launch(TrainingWorker* worker, const core::TrainRecipe& recipe);
    void onFinished(bool completed);

    TrainingThread* run_ = nullptr;
    TrainFilm film_;
    QString runDir_;
    QString runsFolder_;
    QString runPreset_;
    bool runTiny_ = false;
    int64_t runSteps_ = 0;
    int64_t lastStep_ = 0;
    bool running_ = false;
};

} // namespace ui
