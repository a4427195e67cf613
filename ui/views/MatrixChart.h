#pragma once
// One stage of the Inside view: a matrix of numbers as a cell heatmap, with row and column labels, a hover
// tooltip giving the exact value, and a highlighted row and column that the other stages can set (hovering
// key j in one chart marks key j in all of them).

#include "core/base/Matrix.h"
#include "ui/base/ColorMap.h"

#include <QStringList>
#include <QWidget>

#include <functional>
#include <utility>
#include <vector>

class QCustomPlot;
class QCPColorMap;
class QCPColorScale;
class QCPItemRect;
class QCPItemText;

namespace ui {

class MatrixChart : public QWidget {
    Q_OBJECT
public:
    enum class Colours {
        Diverging, ///< signed values: blue below 0, white at 0, red above, symmetric about 0
        Weights    ///< probabilities: [0, 1] in the attention views' colour map
    };
    enum class Scaling {
        Shared,   ///< one colour range for every cell, with a colour bar
        PerColumn ///< each column on its own range (columns of different quantities: scores, weights)
    };
    /// How Colours::Weights paints: the attention views' colour map, range and scale, so a chart of weights
    /// reads like the detail heatmap beside it (per-head and log scales included).
    struct WeightScale {
        ColorMap colours = ColorMap::byName(QString());
        std::pair<double, double> range{0.0, 1.0};
        bool log = false; ///< cells below range.first take its colour; the tooltips keep the exact weight
    };
    explicit MatrixChart(const QString& title, QWidget* parent = nullptr);

    /// Takes effect at the next setMatrix() with Colours::Weights.
    void setWeightScale(const WeightScale& scale) { weightScale_ = scale; }

    /// Shows m (NaN cells are drawn grey: a masked score, −∞). rowLabels label the rows (empty: numbers);
    /// columns are numbered unless colLabels are given.
    void setMatrix(const core::Matrix& m, const QStringList& rowLabels, const QStringList& colLabels = {},
                   Colours colours = Colours::Diverging, Scaling scaling = Scaling::Shared);
    void setTitle(const QString& title);
    /// Writes each value in its cell when the cells are large enough to hold it (small matrices only).
    void setCellNumbers(bool on) { cellNumbers_ = on; }
    /// A word in each cell instead of its number (row-major, rows × cols; empty: none), written where the
    /// cell holds it; the next setMatrix() keeps them only if they still fit its shape.
    void setCellLabels(const QStringList& labels);
    /// What the hover tooltip says of a cell (the logit lens's top ten, say) instead of its exact value.
    void setTipText(std::function<QString(int row, int col)> tip) { tip_ = std::move(tip); }
    /// Outlines one row and one column; −1 for none.
    void setHighlight(int row, int col);
    /// The exact value of a cell; NaN outside the matrix.
    double valueAt(int row, int col) const;
    QString cellText(int row, int col) const;
    /// The centre of a cell in widget coordinates (tests); invalid outside the matrix.
    QPoint cellCenter(int row, int col) const;
    QCustomPlot* plot() const { return plot_; }
    int rows() const { return matrix_.rows; }
    int cols() const { return matrix_.cols; }

Q_SIGNALS:
    /// The cell under the mouse; (−1, −1) when it leaves the matrix.
    void hovered(int row, int col);
    /// A left click on a cell.
    void clicked(int row, int col);

private:
    std::pair<int, int> cellAt(const QPoint& pos) const;
    void updateTicks();
    void placeNumbers();
    void makeTexts();
    /// Whether a cell's colour is dark enough for white text on it.
    bool darkCell(int row, int col) const;

    QCustomPlot* plot_ = nullptr;
    QCPColorMap* map_ = nullptr;
    QCPColorScale* scale_ = nullptr;
    QCPItemRect* rowRect_ = nullptr;
    QCPItemRect* colRect_ = nullptr;
    core::Matrix matrix_;
    QStringList rowLabels_, colLabels_;
    std::pair<int, int> hover_{-1, -1};
    bool cellNumbers_ = false;
    WeightScale weightScale_;
    std::vector<QCPItemText*> numbers_;
    QStringList cellLabels_;
    std::function<QString(int, int)> tip_;
    double range_ = 1.0;   ///< the diverging scale's half-width, for the text colour
    bool weights_ = false; ///< painted in weightScale_ (Colours::Weights), not the diverging map
};

} // namespace ui
