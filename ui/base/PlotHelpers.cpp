#include "ui/base/PlotHelpers.h"

#include "ui/base/QCustomPlotInclude.h"

namespace ui {

QString subscript(int n) {
    static const QString digits = QStringLiteral("₀₁₂₃₄₅₆₇₈₉");
    QString out;
    for (const QChar c : QString::number(n))
        out += digits.at(c.digitValue());
    return out;
}

QCustomPlot* makePlot(const QString& title) {
    auto* plot = new QCustomPlot;
    plot->setMinimumSize(260, 200);
    // Lines of wider pens drawn as one polyline: Qt's stroker otherwise joins every segment of an
    // antialiased 1.5 px curve itself, and four 128-point sinusoids took 126 ms to replot instead of 4 ms
    // (most of the window's start-up). The joins are the only thing that looks different.
    plot->setPlottingHint(QCP::phFastPolylines, true);
    plot->plotLayout()->insertRow(0);
    auto* text = new QCPTextElement(plot, title, QFont(plot->font().family(), 10, QFont::Bold));
    plot->plotLayout()->addElement(0, 0, text);
    return plot;
}

void setPlotTitle(QCustomPlot* plot, const QString& title) {
    if (auto* t = qobject_cast<QCPTextElement*>(plot->plotLayout()->element(0, 0)))
        t->setText(title);
}

QCPColorMap* makeHeatmap(QCustomPlot* plot, QCPColorScale*& scale) {
    auto* map = new QCPColorMap(plot->xAxis, plot->yAxis);
    map->setInterpolate(false);
    scale = new QCPColorScale(plot);
    plot->plotLayout()->addElement(1, 1, scale);
    scale->setType(QCPAxis::atRight);
    scale->setBarWidth(10);
    map->setColorScale(scale);
    // Keeps the colour bar as tall as the axis rect, so its ticks line up with the cells.
    auto* group = new QCPMarginGroup(plot);
    plot->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, group);
    scale->setMarginGroup(QCP::msBottom | QCP::msTop, group);
    plot->yAxis->setRangeReversed(true); // position 0 at the top, as a table is read
    return map;
}

} // namespace ui
