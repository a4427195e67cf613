#pragma once
// The Train tab: pick a task and a model size, start, pause, resume; the loss curve grows live, and the
// attention of a fixed probe example is captured every few steps, with a slider to scrub back through
// those frames and watch the pattern (the anti-diagonal of reverse, say) form.

#include "core/run/AttentionSnapshot.h"
#include "core/train/TrainRecipe.h"
#include "ui/TrainingWorker.h"

#include <QWidget>

#include <memory>
#include <vector>

class QComboBox;
class QLabel;
class QPushButton;
class QSlider;
class QSpinBox;
class QThread;

namespace ui {

class AttentionGrid;
class TrainCurve;

class TrainPage : public QWidget {
    Q_OBJECT
public:
    /// recipesDir: the recipes of the built-in tasks (their sizes are the "classroom" preset).
    explicit TrainPage(const QString& recipesDir, QWidget* parent = nullptr);
    ~TrainPage() override;

    void start();
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

    int frames() const { return static_cast<int>(frames_.size()); }
    int64_t frameStep(int index) const;
    /// Shows frame `index` of the probe's attention in the grid (the slider does this).
    void showFrame(int index);
    int shownFrame() const;
    int lossPoints() const;
    int64_t lastStep() const { return lastStep_; }
    AttentionGrid* grid() const { return grid_; }

Q_SIGNALS:
    void trainingChanged(bool training);
    void message(const QString& text);

private:
    void onProgress(const TrainProgress& p);
    void onProbed(int64_t step, std::shared_ptr<const core::AttentionSnapshot> snap);
    void onFinished(bool completed);
    void updateButtons();
    void chooseRunToContinue();
    /// The chosen preset's recipe file, and what it fixes: a recurrent model's size and steps.
    QString recipePath() const;
    void fitToTask(bool takeSteps);
    /// Clears the curve and frames and runs `worker` on a new thread.
    void launch(TrainingWorker* worker, const core::TrainRecipe& recipe, const QString& what);

    QString recipesDir_;
    QComboBox* task_ = nullptr;
    QComboBox* size_ = nullptr;
    QSpinBox* steps_ = nullptr;
    QPushButton* start_ = nullptr;
    QPushButton* continue_ = nullptr;
    QPushButton* pause_ = nullptr;
    QPushButton* stop_ = nullptr;
    QLabel* status_ = nullptr;
    TrainCurve* curve_ = nullptr;
    AttentionGrid* grid_ = nullptr;
    QSlider* slider_ = nullptr;
    QLabel* frameLabel_ = nullptr;
    QThread* thread_ = nullptr;
    TrainingWorker* worker_ = nullptr;
    QString runDir_;
    bool running_ = false;
    std::vector<std::pair<int64_t, std::shared_ptr<const core::AttentionSnapshot>>> frames_;
    int64_t lastStep_ = 0;
};

} // namespace ui
