#pragma once
// The Train tab's curves: the training loss, and the run's metric (exact match; chrF or perplexity for a
// run continued from the command line) on a second axis, growing as log rows arrive. An induction run also
// draws its best heads' induction and previous-token scores, and marks the step the induction score first
// reaches 0.5: the moment an induction head forms.

#include "ui/train/TrainingWorker.h"

#include <QWidget>

class QCustomPlot;
class QCPItemStraightLine;
class QCPItemText;

namespace ui {

class TrainCurve : public QWidget {
    Q_OBJECT
public:
    explicit TrainCurve(QWidget* parent = nullptr);

    /// Empties both curves for a run that ends at `total`.
    void clear(int64_t total);
    /// Adds a log row: its loss, its metric when it has one, and the best heads' scores of an induction run
    /// (marking the step the induction score first reaches kFormed).
    void add(const TrainProgress& p);
    int lossPoints() const;
    /// The step at which the best induction score first reached kFormed (−1: not yet, or not measured).
    int64_t formedStep() const { return formed_; }
    static constexpr double kFormed = 0.5;

    /// One line for the status: step, loss, speed, time, and the metric when just measured.
    static QString describe(const TrainProgress& p);

private:
    QCustomPlot* plot_ = nullptr;
    int64_t formed_ = -1;
    QCPItemStraightLine* formedLine_ = nullptr;
    QCPItemText* formedLabel_ = nullptr;
};

} // namespace ui
