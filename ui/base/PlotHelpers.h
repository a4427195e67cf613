#pragma once
// Small builders the positional plots share, so every panel gets the same title row, colour-bar layout
// and subscript digits.

#include <QString>

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

} // namespace ui
