#pragma once
// The Train tab: pick a task and a model size, start, pause, resume; the loss curve grows live, and the
// attention of a fixed probe example is captured every few steps, with a slider to scrub back through
// those frames and watch the pattern (the anti-diagonal of reverse, say) form. The run itself, and what it
// has recorded, is the TrainSession's; the page holds the controls and the views.

#include "core/run/AttentionSnapshot.h"
#include "core/train/TrainRecipe.h"
#include "ui/train/TrainFilm.h"

#include <QWidget>

#include <memory>
#include <optional>
#include <vector>

class QComboBox;
class QLabel;
class QPushButton;
class QSpinBox;

namespace ui {

class AttentionGrid;
class TrainCurve;
class TrainFrames;
class TrainSession;

class TrainPage : public QWidget {
    Q_OBJECT
public:
    /// recipesDir: the recipes of the built-in tasks (their sizes are the "classroom" preset).
    explicit TrainPage(const QString& recipesDir, QWidget* parent = nullptr);
    ~TrainPage() override;

    void start();
    /// Starts a run of `preset` (a recipe's name, as the task list holds it) at a size, for `steps` steps (0:
    /// the recipe's own), as a lesson asks; false with a message when the preset is not offered or a run is
    /// going.
    bool startPreset(const QString& preset, bool tiny, int steps, QString* error);
    /// The preset, size and steps of the run last started with Start (empty preset: none, or a continued
    /// run).
    QString runPreset() const;
    bool runTiny() const;
    int64_t runSteps() const;
    /// Continues the run saved in dir to its own end, from its last checkpoint: a run stopped, or lost
    /// with a crash, goes on where it was saved.
    void continueRun(const QString& dir);
    void togglePause();
    void stop();
    bool training() const;
    bool paused() const;
    /// Ends the run, which saves it (checkpoint and model directory); false with a message when that failed.
    bool save(QString* error);
    /// Asks, while a run is going, whether to stop it so the window can close; a stopped run is saved,
    /// and this waits for that. False when the window should stay open: Cancel, or the save failed.
    bool confirmClose(QWidget* parent);
    /// Where the current (or last) run writes.
    QString runDirectory() const;
    /// Where new runs get their folders: RunFolders::defaultFolder() unless set (a batch run sets its own).
    QString runsFolder() const;
    void setRunsFolder(const QString& dir);

    int frames() const;
    int64_t frameStep(int index) const;
    /// Shows frame `index` of the probe's attention in the grid (the slider does this).
    void showFrame(int index);
    /// Shows frame `index` and stays there as newer frames arrive (a lesson's frame of a given step), until
    /// the slider is taken back to the newest.
    void holdFrame(int index);
    int shownFrame() const;
    int lossPoints() const;
    int64_t lastStep() const;
    /// The last log row at or before `step` (nothing before the first).
    std::optional<TrainProgress> rowAt(int64_t step) const;
    /// The step at which the run's best induction score first reached 0.5 (−1: not yet, or not measured).
    int64_t formedStep() const;
    /// The first frame at or after `step`, the last at or before it; −1 when there is none.
    int frameAtOrAfter(int64_t step) const;
    int frameAtOrBefore(int64_t step) const;
    AttentionGrid* grid() const;
    /// The run the tab offers to continue (the last one, stopped short of its steps: the window closed, was
    /// killed or stopped it); empty when none is offered.
    QString offeredRun() const;

Q_SIGNALS:
    void trainingChanged(bool training);
    /// A log row or a frame arrived.
    void progressed();
    /// Paused, and now really held between two steps, after `step` (Pause takes effect once the step under
    /// way ends): nothing more arrives until Resume.
    void held(int64_t step);
    void message(const QString& text);

private:
    /// A run started or continued: `what` for the status line.
    void launched(const QString& what);
    void onFinished(bool completed, const QString& error);
    void updateButtons();
    void chooseRunToContinue();
    /// Offers the last run when it stopped short of its steps and nothing trains now; hides the offer else.
    void offerStoppedRun();
    /// The chosen preset's recipe file, and what it fixes: a recurrent model's size and steps.
    QString recipePath() const;
    void fitToTask(bool takeSteps);
    /// Start with the controls' preset, size and steps; false with why (a bad recipe) when it cannot.
    bool startRun(QString* error);

    QString recipesDir_;
    QComboBox* task_ = nullptr;
    QComboBox* size_ = nullptr;
    QSpinBox* steps_ = nullptr;
    QPushButton* start_ = nullptr;
    QPushButton* continue_ = nullptr;
    QPushButton* pause_ = nullptr;
    QPushButton* stop_ = nullptr;
    QLabel* status_ = nullptr;
    QWidget* offer_ = nullptr; ///< "The last run stopped at step …" with Continue It
    QLabel* offerText_ = nullptr;
    QString offered_;
    TrainCurve* curve_ = nullptr;
    TrainFrames* frames_ = nullptr;
    TrainSession* session_ = nullptr;
};

} // namespace ui
