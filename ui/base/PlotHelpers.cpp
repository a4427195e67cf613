#include "ui/base/PlotHelpers.h"

#include "ui/base/QCustomPlotInclude.h"

#include <QFontMetrics>

#include <algorithm>
#include <cmath>

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

void setLogScale(QCPColorScale* scale, bool log) {
    const auto type = log ? QCPAxis::stLogarithmic : QCPAxis::stLinear;
    if (scale->dataScaleType() == type)
        return;
    scale->setDataScaleType(type); // also the map's
    if (log)
        scale->axis()->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
    else
        scale->axis()->setTicker(QSharedPointer<QCPAxisTicker>::create());
    // "10⁻³" on a log scale; QCPAxis's own defaults on a linear one.
    scale->axis()->setNumberFormat(log ? QStringLiteral("eb") : QStringLiteral("gb"));
    scale->axis()->setNumberPrecision(log ? 0 : 6);
}

LabelFit fitLabels(const QFontMetrics& fm, int widestX, double colPx, double rowPx, bool wasRotated) {
    LabelFit fit;
    colPx = std::max(colPx, 1e-3);
    rowPx = std::max(rowPx, 1e-3);
    // Upright labels read best: turned only when they would collide.
    fit.rotated = widestX + (wasRotated ? 10 : 4) > colPx;
    const double xNeed = fit.rotated ? fm.height() + 1 : widestX + 4;
    fit.xStep = std::max(1, int(std::ceil(xNeed / colPx)));
    fit.yStep = std::max(1, int(std::ceil((fm.height() + 1) / rowPx)));
    return fit;
}

bool setTokenTicks(QCustomPlot* plot, const QStringList& x, const QStringList& y) {
    const QFontMetrics fm(plot->xAxis->tickLabelFont());
    const QRect area = plot->axisRect()->rect();
    const double colPx = area.width() / std::max(plot->xAxis->range().size(), 1.0);
    const double rowPx = area.height() / std::max(plot->yAxis->range().size(), 1.0);
    int widest = 0;
    for (const auto& l : x)
        widest = std::max(widest, fm.horizontalAdvance(l));
    const auto fit = fitLabels(fm, widest, colPx, rowPx, plot->xAxis->tickLabelRotation() != 0.0);
    bool changed = false;
    const auto apply = [&changed](QCPAxis* axis, const QStringList& labels, int step) {
        if (labels.isEmpty())
            return;
        auto ticker = axis->ticker().dynamicCast<QCPAxisTickerText>();
        if (!ticker) {
            ticker = QSharedPointer<QCPAxisTickerText>::create();
            ticker->setSubTickCount(0);
            axis->setTicker(ticker);
            changed = true;
        }
        QMap<double, QString> want;
        for (int i = 0; i < labels.size(); i += step)
            want.insert(i, labels[i]);
        if (ticker->ticks() != want) {
            ticker->setTicks(want);
            changed = true;
        }
    };
    apply(plot->xAxis, x, fit.xStep);
    apply(plot->yAxis, y, fit.yStep);
    const double rotation = fit.rotated ? -90.0 : 0.0;
    if (!x.isEmpty() && plot->xAxis->tickLabelRotation() != rotation) {
        plot->xAxis->setTickLabelRotation(rotation);
        changed = true;
    }
    return changed;
}

} // namespace ui
