#include "ui/views/MatrixChart.h"

#include "ui/base/ColorMap.h"
#include "ui/base/PlotHelpers.h"
#include "ui/base/QCustomPlotInclude.h"

#include <QToolTip>
#include <QVBoxLayout>

#include <cmath>
#include <limits>

namespace ui {

namespace {

// A side of n cells labelled: its labels, numbers where they run out.
QStringList sideLabels(const QStringList& labels, int n) {
    QStringList out;
    for (int i = 0; i < n; ++i)
        out << (i < labels.size() ? labels[i] : QString::number(i));
    return out;
}

QCPColorGradient diverging() {
    QCPColorGradient g;
    g.clearColorStops();
    g.setColorStopAt(0.0, QColor(0x2c, 0x5d, 0xa8));
    g.setColorStopAt(0.5, QColor(0xf7, 0xf7, 0xf7));
    g.setColorStopAt(1.0, QColor(0xb4, 0x2b, 0x2b));
    g.setColorInterpolation(QCPColorGradient::ciRGB);
    g.setLevelCount(256);
    return g;
}

} // namespace

MatrixChart::MatrixChart(const QString& title, QWidget* parent) : QWidget(parent) {
    plot_ = makePlot(title);
    plot_->setParent(this);
    plot_->setMinimumSize(200, 150);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_);
    map_ = makeHeatmap(plot_, scale_);
    scale_->setBarWidth(8);
    for (auto** r : {&rowRect_, &colRect_}) {
        *r = new QCPItemRect(plot_);
        (*r)->setPen(QPen(QColor(0x11, 0x11, 0x11), 1.5));
        (*r)->setBrush(Qt::NoBrush);
        (*r)->setVisible(false);
    }
    plot_->xAxis->grid()->setVisible(false);
    plot_->yAxis->grid()->setVisible(false);
    plot_->setMouseTracking(true);
    connect(plot_, &QCustomPlot::mouseMove, this, [this](QMouseEvent* e) {
        const auto cell = cellAt(e->position().toPoint());
        if (cell.first < 0)
            QToolTip::hideText();
        else
            QToolTip::showText(e->globalPosition().toPoint(),
                               tip_ ? tip_(cell.first, cell.second) : cellText(cell.first, cell.second),
                               plot_);
        if (cell != hover_) {
            hover_ = cell;
            Q_EMIT hovered(cell.first, cell.second);
        }
    });
    connect(plot_, &QCustomPlot::mousePress, this, [this](QMouseEvent* e) {
        const auto cell = cellAt(e->position().toPoint());
        if (e->button() == Qt::LeftButton && cell.first >= 0)
            Q_EMIT clicked(cell.first, cell.second);
    });
    connect(plot_, &QCustomPlot::afterLayout, this, &MatrixChart::updateTicks);
}

void MatrixChart::setTitle(const QString& title) {
    setPlotTitle(plot_, title);
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void MatrixChart::setMatrix(const core::Matrix& m, const QStringList& rowLabels, const QStringList& colLabels,
                            Colours colours, Scaling scaling) {
    matrix_ = m;
    rowLabels_ = rowLabels;
    colLabels_ = colLabels;
    const int rows = std::max(m.rows, 1), cols = std::max(m.cols, 1);
    auto* cells = map_->data();
    cells->setSize(cols, rows);
    // A single row or column spans its cell; QCustomPlot draws nothing for an empty range.
    const auto span = [](int n) { return n <= 1 ? QCPRange(-0.5, 0.5) : QCPRange(0, n - 1); };
    cells->setRange(span(cols), span(rows));
    // Per column: each column scaled by its own largest magnitude, so a column of scores and one of weights
    // both show their shape; the tooltip keeps the exact values.
    const bool perColumn = scaling == Scaling::PerColumn;
    std::vector<double> top(static_cast<std::size_t>(cols), 0.0);
    double all = 0.0;
    for (int r = 0; r < m.rows; ++r)
        for (int c = 0; c < m.cols; ++c)
            if (std::isfinite(m.at(r, c))) {
                top[std::size_t(c)] = std::max(top[std::size_t(c)], std::abs(double(m.at(r, c))));
                all = std::max(all, top[std::size_t(c)]);
            }
    const auto nan = std::numeric_limits<double>::quiet_NaN();
    const bool weights = colours == Colours::Weights;
    // A log scale has no 0: its cells hold at least the scale's low end (as the detail heatmap's do).
    const double floor = weights && weightScale_.log ? weightScale_.range.first : -HUGE_VAL;
    for (int r = 0; r < m.rows; ++r)
        for (int c = 0; c < m.cols; ++c) {
            const double v = m.at(r, c);
            const double div = perColumn && top[std::size_t(c)] > 0.0 ? top[std::size_t(c)] : 1.0;
            cells->setCell(c, r, std::isfinite(v) ? std::max(v / div, floor) : nan);
        }
    auto gradient = weights ? weightScale_.colours.gradient() : diverging();
    gradient.setNanHandling(QCPColorGradient::nhNanColor);
    gradient.setNanColor(weights ? QColor(weightScale_.colours.maskedColor()) : QColor(0xbd, 0xbd, 0xbd));
    map_->setGradient(gradient);
    setLogScale(scale_, weights && weightScale_.log);
    const double range = perColumn || all <= 0.0 ? 1.0 : all;
    map_->setDataRange(weights ? QCPRange(weightScale_.range.first, weightScale_.range.second)
                               : QCPRange(-range, range));
    range_ = range;
    weights_ = weights;
    if (cellLabels_.size() != qsizetype(m.rows) * m.cols)
        cellLabels_.clear();
    makeTexts();
    scale_->setVisible(!perColumn);
    plot_->xAxis->setRange(-0.5, cols - 0.5);
    plot_->yAxis->setRange(-0.5, rows - 0.5);
    updateTicks();
    setHighlight(-1, -1);
}

void MatrixChart::setCellLabels(const QStringList& labels) {
    cellLabels_ = labels.size() == qsizetype(matrix_.rows) * matrix_.cols ? labels : QStringList{};
    makeTexts();
    placeNumbers();
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

bool MatrixChart::darkCell(int row, int col) const {
    const double v = matrix_.at(row, col);
    if (!std::isfinite(v))
        return false;
    if (!weights_) // the cell as painted: scaled by its column's range where columns have their own
        return std::abs(map_->data()->cell(col, row)) / range_ > 0.6;
    // The weights' colour map: the text is white where the colour under it is dark.
    const auto [lo, hi] = weightScale_.range;
    double t = hi > lo ? (v - lo) / (hi - lo) : 0.0;
    if (weightScale_.log && lo > 0.0 && hi > lo)
        t = std::log(std::max(v, lo) / lo) / std::log(hi / lo);
    return qGray(weightScale_.colours.color(t)) < 128;
}

void MatrixChart::makeTexts() {
    for (auto* t : numbers_)
        plot_->removeItem(t);
    numbers_.clear();
    const auto& m = matrix_;
    const bool labels = !cellLabels_.isEmpty();
    // Thousands of items would slow every replot for text too small to read anyway.
    if (!(labels ? m.rows * m.cols <= 4000 : cellNumbers_ && m.rows * m.cols <= 400))
        return;
    for (int r = 0; r < m.rows; ++r)
        for (int c = 0; c < m.cols; ++c) {
            auto* t = new QCPItemText(plot_);
            t->position->setCoords(c, r);
            const double v = m.at(r, c);
            t->setText(labels ? cellLabels_[r * m.cols + c]
                              : (std::isfinite(v) ? QString::number(v, 'g', 3) : QStringLiteral("−∞")));
            t->setFont(QFont(font().family(), 8));
            t->setColor(darkCell(r, c) ? Qt::white : Qt::black);
            t->setClipToAxisRect(true);
            t->setVisible(false); // placeNumbers shows those that fit
            numbers_.push_back(t);
        }
}

void MatrixChart::placeNumbers() {
    // Text only where a cell holds it: on a long input it would be a smear.
    const auto* rect = plot_->axisRect();
    const double cellW = rect->width() / std::max(1.0, double(matrix_.cols)),
                 cellH = rect->height() / std::max(1.0, double(matrix_.rows));
    const QFontMetrics fm(QFont(font().family(), 8));
    const bool tall = cellH >= fm.height();
    const bool numbersFit = tall && cellW >= fm.horizontalAdvance(QStringLiteral("-0.000"));
    if (cellLabels_.isEmpty()) {
        for (auto* t : numbers_)
            t->setVisible(numbersFit);
        return;
    }
    // A word is cut to its cell, and shown while two characters of it and the ellipsis fit.
    const int room = static_cast<int>(cellW) - 4;
    const int least = fm.horizontalAdvance(QStringLiteral("MM…"));
    for (std::size_t i = 0; i < numbers_.size(); ++i) {
        const auto& full = cellLabels_[qsizetype(i)];
        numbers_[i]->setText(fm.elidedText(full, Qt::ElideRight, room));
        numbers_[i]->setVisible(tall && (room >= least || fm.horizontalAdvance(full) <= room));
    }
}

void MatrixChart::updateTicks() {
    placeNumbers();
    // Every label while there is room for it (turned when too wide for its cell), thinned only past that.
    if (setTokenTicks(plot_, sideLabels(colLabels_, std::max(matrix_.cols, 1)),
                      sideLabels(rowLabels_, std::max(matrix_.rows, 1))))
        plot_->replot(QCustomPlot::rpQueuedReplot);
}

void MatrixChart::setHighlight(int row, int col) {
    const bool hasRow = row >= 0 && row < matrix_.rows, hasCol = col >= 0 && col < matrix_.cols;
    rowRect_->setVisible(hasRow);
    colRect_->setVisible(hasCol);
    if (hasRow) {
        rowRect_->topLeft->setCoords(-0.5, row - 0.5);
        rowRect_->bottomRight->setCoords(matrix_.cols - 0.5, row + 0.5);
    }
    if (hasCol) {
        colRect_->topLeft->setCoords(col - 0.5, -0.5);
        colRect_->bottomRight->setCoords(col + 0.5, matrix_.rows - 0.5);
    }
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

double MatrixChart::valueAt(int row, int col) const {
    if (row < 0 || col < 0 || row >= matrix_.rows || col >= matrix_.cols)
        return std::numeric_limits<double>::quiet_NaN();
    return matrix_.at(row, col);
}

QString MatrixChart::cellText(int row, int col) const {
    const double v = valueAt(row, col);
    const QString r = row < rowLabels_.size() ? rowLabels_[row] : QString::number(row);
    const QString c = col < colLabels_.size() ? colLabels_[col] : tr("d = %1").arg(col);
    return tr("%1, %2: %3").arg(r, c, std::isfinite(v) ? QString::number(v, 'g', 6) : tr("−∞ (masked)"));
}

std::pair<int, int> MatrixChart::cellAt(const QPoint& pos) const {
    if (matrix_.empty() || !plot_->axisRect()->rect().contains(pos))
        return {-1, -1};
    const int c = static_cast<int>(std::lround(plot_->xAxis->pixelToCoord(pos.x())));
    const int r = static_cast<int>(std::lround(plot_->yAxis->pixelToCoord(pos.y())));
    if (r < 0 || c < 0 || r >= matrix_.rows || c >= matrix_.cols)
        return {-1, -1};
    return {r, c};
}

QPoint MatrixChart::cellCenter(int row, int col) const {
    if (row < 0 || col < 0 || row >= matrix_.rows || col >= matrix_.cols)
        return {};
    return plot_->mapTo(this, QPoint(static_cast<int>(plot_->xAxis->coordToPixel(col)),
                                     static_cast<int>(plot_->yAxis->coordToPixel(row))));
}

} // namespace ui
