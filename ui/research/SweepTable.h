#pragma once
// Every head switched off alone (core::ablationSweep) in a table sorted by any column: how far the next-token
// distribution moves on average over the greedy output (KL), and whether the output itself changes. Runs in
// the background with a progress bar and a Cancel button; a double-click switches that head off in the run.

#include "core/analysis/AblationEffects.h"

#include <QWidget>

#include <atomic>
#include <memory>
#include <vector>

class QLabel;
class QProgressBar;
class QPushButton;
class QStandardItemModel;
class QTableView;

namespace core {
class Model;
}

namespace ui {

class LatestJob;

class SweepTable : public QWidget {
    Q_OBJECT
public:
    enum Column { Kind, Layer, Head, MeanKl, MaxKl, Changed, Output, ColumnCount };

    explicit SweepTable(QWidget* parent = nullptr);
    ~SweepTable() override;

    /// What a sweep starts from: the model, the source and the target's initial prefix (core::ablationSweep),
    /// and the positions the run may use (0: max_len). A change of model drops the table (its heads are
    /// another model's).
    void setRun(std::shared_ptr<const core::Model> model, std::vector<int64_t> src,
                std::vector<int64_t> prefix, int64_t positions = 0);
    /// Starts the sweep in the background (a running one is stopped first).
    void start();
    /// Stops a running sweep; the table keeps what it showed before.
    void cancel();
    bool busy() const;
    const std::vector<core::HeadEffect>& effects() const { return effects_; }
    QTableView* view() const { return view_; }
    QPushButton* startButton() const { return start_; }
    QString status() const;

Q_SIGNALS:
    /// A row was double-clicked (or Enter pressed on it): switch that head off alone.
    void headChosen(const core::HeadRef& head);
    void finished();
    /// From the sweep's thread, queued to this one: heads done so far.
    void progressed(int done, int total);

private:
    void show(const core::AblationSweep& sweep);
    void progress(int done, int total);

    LatestJob* job_ = nullptr;
    std::shared_ptr<std::atomic<bool>> stop_;
    std::shared_ptr<const core::Model> model_;
    std::vector<int64_t> src_, prefix_;
    int64_t positions_ = 0;
    std::vector<core::HeadEffect> effects_;
    QLabel* status_ = nullptr;
    QPushButton* start_ = nullptr;
    QPushButton* cancel_ = nullptr;
    QProgressBar* bar_ = nullptr;
    QStandardItemModel* items_ = nullptr;
    QTableView* view_ = nullptr;
};

} // namespace ui
