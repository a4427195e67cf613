#pragma once
// The Compare page: a run pinned (model, text, step, heads off) beside the run on screen, for the kind, layer
// and head the Attention page shows: the pinned weights (A), the current ones (B) and B − A on a diverging
// colour map centred at zero. Pin, then step, type another text, switch heads off or open another model with
// the same tokenizer; the page shows what moved.

#include "ui/base/ShownAttention.h"
#include "ui/run/RunResult.h"

#include <QWidget>

class QLabel;
class QPushButton;

namespace ui {

class MatrixChart;

class ComparePage : public QWidget {
    Q_OBJECT
public:
    explicit ComparePage(QWidget* parent = nullptr);

    /// Keeps the current run as A (nothing happens before a first result).
    void pin();
    void setResult(const RunResultPtr& result);
    void clear();
    /// The kind, layer and head to compare (the Attention page's).
    void setShown(const ShownAttention& shown);

    bool pinned() const { return pinned_ != nullptr; }
    MatrixChart* chart(int which) const; ///< 0: A, 1: B, 2: B − A
    QString statusText() const;
    QString aText() const; ///< what A is: model, text, step, heads off
    QString bText() const;
    QPushButton* pinButton() const { return pinButton_; }

protected:
    void showEvent(QShowEvent* event) override;

private:
    /// Draws A, B and B − A now when the page is visible; else marks it to when it is shown.
    void refresh();
    /// What a run is, in a line: model, text, step, heads off.
    static QString describe(const RunResult& r);

    RunResultPtr pinned_, current_;
    ShownAttention shown_;
    QPushButton* pinButton_ = nullptr;
    QLabel* a_ = nullptr;
    QLabel* b_ = nullptr;
    QLabel* status_ = nullptr;
    MatrixChart* charts_[3] = {nullptr, nullptr, nullptr};
    bool stale_ = false; ///< something changed while the page was hidden
};

} // namespace ui
