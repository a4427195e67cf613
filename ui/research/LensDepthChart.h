#pragma once
// The logit lens against depth: the followed token's probability at each point of the stream, one line per
// position, the chosen position drawn strong and the others faint, so where a prediction forms (and where
// it is lost again) reads along one line and its spread across the text beside it.

#include "core/analysis/LogitLens.h"

#include <QStringList>
#include <QWidget>

class QCustomPlot;

namespace ui {

class LensDepthChart : public QWidget {
    Q_OBJECT
public:
    explicit LensDepthChart(QWidget* parent = nullptr);

    /// The readings to draw; pointLabels name the points along the axis, tokenLabels the positions.
    void setLens(const core::LogitLens& lens, const QStringList& pointLabels, const QStringList& tokenLabels,
                 const QStringList& followedLabels);
    void clear();
    /// The position drawn strong (−1: none).
    void setPosition(int position);
    int position() const { return position_; }
    /// The strong line's probabilities, one per point (tests).
    QVector<double> shownLine() const;
    QCustomPlot* plot() const { return plot_; }

private:
    void redraw();

    QCustomPlot* plot_ = nullptr;
    std::vector<std::vector<float>> logprob_; // [point][position]
    QStringList points_, tokens_, followed_;
    int position_ = -1;
};

} // namespace ui
