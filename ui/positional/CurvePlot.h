#pragma once
// Chosen columns of a positional table drawn as curves against position, with a legend row under the axes.
// The table holds whole positions only (the dots); a sinusoidal column's line is its formula between them,
// and a note says which curves turn too fast for whole positions to show their shape.

#include <QVector>
#include <QWidget>

#include <vector>

class QCustomPlot;
class QLabel;

namespace ui {

class CurvePlot : public QWidget {
    Q_OBJECT
public:
    explicit CurvePlot(QWidget* parent = nullptr);
    ~CurvePlot() override;

    /// Draws columns `dims` of the first `positions` rows of `table` (row-major, `columns` wide), one curve
    /// each in the order given. A sinusoidal table names each curve's sin or cos term as well.
    void showCurves(const std::vector<float>& table, int columns, int positions, const QVector<int>& dims,
                    bool sinusoidal);
    /// Drops every curve without repainting, for a model whose table is hidden anyway.
    void clear();

    int curveCount() const;
    /// What the note under the plot says about curves too fast for their samples (empty when none is).
    QString noteText() const;
    QCustomPlot* plot() const { return plot_; }

private:
    QCustomPlot* plot_ = nullptr;
    QLabel* note_ = nullptr;
};

} // namespace ui
