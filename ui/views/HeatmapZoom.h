#pragma once
// Zoom and pan for the detail heatmap: the wheel zooms about the pointer, a drag pans, zoomBy and reset
// serve the keys; the view never leaves the map nor shrinks below a cell. While zoomed in, an overview in
// the plot's corner shows the whole map and a box where the view is.

#include "ui/base/ColorMap.h"

#include <QObject>
#include <QRect>
#include <QRectF>

#include <utility>

class QCustomPlot;
class QCPColorMap;

namespace ui {

class ZoomOverview;

class HeatmapZoom : public QObject {
    Q_OBJECT
public:
    HeatmapZoom(QCustomPlot* plot, QCPColorMap* map, QObject* parent = nullptr);

    /// The map's tokens a side. A new shape shows the whole map; the same shape keeps the zoom.
    void setShape(int keys, int queries);
    /// Colours for the overview's picture of the map's cells (as the map paints them).
    void setColors(const ColorMap& map, std::pair<double, double> range, bool log);

    void zoomBy(double factor); ///< about the view's centre; < 1 zooms in
    void reset();               ///< the whole map
    /// Shows these cells (x keys, y queries, as visibleCells gives them), kept inside the map.
    void setVisibleCells(const QRectF& cells);
    bool zoomed() const;
    QRectF visibleCells() const; ///< in tokens: x keys, y queries
    ZoomOverview* overview() const { return overview_; }

Q_SIGNALS:
    /// The part in view changed (labels may fit differently).
    void viewChanged();

private:
    void onRangeChanged();
    void paintOverview(); ///< the overview's picture of the map's cells, in the colours kept by setColors

    QCustomPlot* plot_;
    QCPColorMap* map_;
    ZoomOverview* overview_;
    int keys_ = 0;
    int queries_ = 0;
    bool clamping_ = false;
    ColorMap colors_ = ColorMap::byName(QString());
    std::pair<double, double> range_{0.0, 1.0};
    bool log_ = false;
    bool stale_ = true;
    QRectF lastView_;
    QRect lastArea_;
};

} // namespace ui
