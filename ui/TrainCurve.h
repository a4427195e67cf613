#pragma once
// The Train tab's curves: the training loss, and the run's metric (exact match; chrF or perplexity for a
// run continued from the command line) on a second axis, growing as log rows arrive.

#include "ui/TrainingWorker.h"

#include <QWidget>

class QCustomPlot;

namespace ui {

class TrainCurve : public QWidget {
    Q_OBJECT
public:
    explicit TrainCurve(QWidget* parent = nullptr);

    /// Empties both curves for a run that ends at `total`.
    void clear(int64_t total);
    /// Adds a log row: its loss, and its metric when it has one.
    void add(const TrainProgress& p);
    int lossPoints() const;

    /// One line for the status: step, loss, speed, time, and the metric when just measured.
    static QString describe(const TrainProgress& p);

private:
    QCustomPlot* plot_ = nullptr;
};

} // namespace ui
