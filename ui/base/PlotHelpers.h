#pragma once
// Small builders the positional plots share, so every panel gets the same title row, colour-bar layout
// and subscript digits.

#include <QString>
#include <QStringList>

class QFontMetrics;

class QCPColorMap;
class QCPColorScale;
class QCustomPlot;

namespace ui {

/// n written in Unicode subscript digits, for θ₁₂-style labels.
QString subscript(int n);

/// A plot with a bold title in a row of its own above the axes (row 0; the axis rect is row 1).
QCustomPlot* makePlot(const QString& title);
/// Replaces the title makePlot put in; does nothing to a plot without one.
void setPlotTitle(QCustomPlot* plot, const QString& title);

/// A cell heatmap on plot's axes with a colour bar at its right, read like a table (row 0 at the top).
/// The plot must come from makePlot; `scale` receives the colour bar.
QCPColorMap* makeHeatmap(QCustomPlot* plot, QCPColorScale*& scale);
/// How token labels fit a pair of axes without overlapping, thinned only where there is no room: the
/// bottom (x) labels stay upright while the widest of them fits its cell and turn a quarter turn when it
/// does not; every xStep-th or yStep-th label is kept where even that is too dense.
struct LabelFit {
    int xStep = 1;
    int yStep = 1;
    bool rotated = false;
};
/// widestX: the widest bottom label in pixels; colPx, rowPx: pixels per cell across and down; wasRotated:
/// the labels are turned now, and stay so until a few pixels more than they need (turning changes the
/// margins, and so the cells, which must not flip the decision back at the next layout).
LabelFit fitLabels(const QFontMetrics& fm, int widestX, double colPx, double rowPx, bool wasRotated = false);
/// Labels the plot's bottom and left axes at 0, 1, … with `x` and `y` (an empty list leaves that axis
/// alone), thinned and turned by fitLabels for the axis rect and ranges as they are now. Returns whether
/// anything changed: called after a layout, the caller replots only then (the next layout settles).
bool setTokenTicks(QCustomPlot* plot, const QStringList& x, const QStringList& y);

/// The colour bar's (and its map's) scale: logarithmic with "10⁻³" ticks, or linear with QCPAxis's own.
void setLogScale(QCPColorScale* scale, bool log);

} // namespace ui
