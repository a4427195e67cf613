#include "ui/views/HeatmapZoom.h"

#include "ui/base/QCustomPlotInclude.h"
#include "ui/views/ZoomOverview.h"

#include <algorithm>
#include <cmath>

namespace ui {

HeatmapZoom::HeatmapZoom(QCustomPlot* plot, QCPColorMap* map, QObject* parent)
    : QObject(parent), plot_(plot), map_(map) {
    plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot_->axisRect()->setRangeZoomFactor(0.8);
    overview_ = new ZoomOverview(plot_);
    for (QCPAxis* axis : {plot_->xAxis, plot_->yAxis})
        connect(axis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, &HeatmapZoom::onRangeChanged);
    connect(plot_, &QCustomPlot::afterLayout, this, &HeatmapZoom::onRangeChanged);
    connect(overview_, &ZoomOverview::centreRequested, this, [this](QPointF cell) {
        const auto x = plot_->xAxis->range(), y = plot_->yAxis->range();
        // Overview cells are the map's (possibly pooled) cells; the axes count tokens.
        const double kx = double(keys_) / std::max(1, map_->data()->keySize());
        const double ky = double(queries_) / std::max(1, map_->data()->valueSize());
        plot_->xAxis->setRange(cell.x() * kx - 0.5, x.size(), Qt::AlignCenter);
        plot_->yAxis->setRange(cell.y() * ky - 0.5, y.size(), Qt::AlignCenter);
        plot_->replot(QCustomPlot::rpQueuedReplot);
    });
}

void HeatmapZoom::setShape(int keys, int queries) {
    const bool same = keys == keys_ && queries == queries_;
    keys_ = keys;
    queries_ = queries;
    if (!same || !zoomed()) {
        plot_->xAxis->setRange(-0.5, keys_ - 0.5);
        plot_->yAxis->setRange(-0.5, queries_ - 0.5);
    }
    onRangeChanged();
}

void HeatmapZoom::zoomBy(double factor) {
    if (queries_ == 0)
        return;
    plot_->xAxis->scaleRange(factor);
    plot_->yAxis->scaleRange(factor);
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void HeatmapZoom::reset() {
    plot_->xAxis->setRange(-0.5, keys_ - 0.5);
    plot_->yAxis->setRange(-0.5, queries_ - 0.5);
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void HeatmapZoom::setVisibleCells(const QRectF& cells) {
    if (queries_ == 0)
        return;
    plot_->xAxis->setRange(cells.x() - 0.5, cells.x() - 0.5 + cells.width());
    plot_->yAxis->setRange(cells.y() - 0.5, cells.y() - 0.5 + cells.height());
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

bool HeatmapZoom::zoomed() const {
    const auto x = plot_->xAxis->range(), y = plot_->yAxis->range();
    return queries_ > 0 && (x.size() < keys_ - 1e-6 || y.size() < queries_ - 1e-6);
}

QRectF HeatmapZoom::visibleCells() const {
    const auto x = plot_->xAxis->range(), y = plot_->yAxis->range();
    return QRectF(x.lower + 0.5, y.lower + 0.5, x.size(), y.size());
}

void HeatmapZoom::onRangeChanged() {
    if (clamping_ || queries_ == 0)
        return;
    clamping_ = true;
    // Never past the map's edges, never smaller than one cell, never larger than the map.
    const auto clampAxis = [](QCPAxis* axis, int n) {
        auto r = axis->range();
        const double size = std::clamp(r.size(), 1.0, double(n));
        double lower = std::clamp(r.lower, -0.5, n - 0.5 - size);
        if (std::abs(lower - r.lower) > 1e-9 || std::abs(size - r.size()) > 1e-9)
            axis->setRange(lower, lower + size);
    };
    clampAxis(plot_->xAxis, keys_);
    clampAxis(plot_->yAxis, queries_);
    clamping_ = false;
    const bool in = zoomed();
    if (in && stale_)
        paintOverview();
    if (in) {
        const QRect area = plot_->axisRect()->rect();
        overview_->move(area.right() - overview_->width() - 6, area.top() + 6);
        // The box in the overview's cells (pooled like the map).
        const double kx = std::max(1, map_->data()->keySize()) / double(keys_);
        const double ky = std::max(1, map_->data()->valueSize()) / double(queries_);
        const QRectF v = visibleCells();
        overview_->setVisibleCells(QRectF(v.left() * kx, v.top() * ky, v.width() * kx, v.height() * ky));
    }
    overview_->setVisible(in);
    if (in)
        overview_->raise();
    // Said only when the view moved: the labels' answer replots, and each replot lays out again.
    const QRectF view = visibleCells();
    const QRect area = plot_->axisRect()->rect();
    if (view == lastView_ && area == lastArea_)
        return;
    lastView_ = view;
    lastArea_ = area;
    Q_EMIT viewChanged();
}

void HeatmapZoom::setColors(const ColorMap& colors, std::pair<double, double> range, bool log) {
    // Kept, and drawn only while zoomed: every step rebuilds the map, and nobody sees an overview unzoomed.
    colors_ = colors;
    range_ = range;
    log_ = log;
    stale_ = true;
    if (zoomed())
        paintOverview();
}

void HeatmapZoom::paintOverview() {
    stale_ = false;
    const auto& colors = colors_;
    const auto range = range_;
    const bool log = log_;
    const int cols = map_->data()->keySize(), rows = map_->data()->valueSize();
    QImage image(cols, rows, QImage::Format_RGB32);
    const double lo = range.first, hi = range.second;
    for (int r = 0; r < rows; ++r) {
        auto* line = reinterpret_cast<QRgb*>(image.scanLine(r));
        for (int c = 0; c < cols; ++c) {
            const double v = map_->data()->cell(c, r);
            if (std::isnan(v)) {
                line[c] = colors.maskedColor();
                continue;
            }
            const double t =
                log ? (std::log10(std::max(v, lo)) - std::log10(lo)) / (std::log10(hi) - std::log10(lo))
                    : (v - lo) / (hi - lo);
            line[c] = colors.color(std::clamp(t, 0.0, 1.0));
        }
    }
    overview_->setImage(std::move(image));
}

} // namespace ui
