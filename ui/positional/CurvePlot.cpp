#include "ui/positional/CurvePlot.h"

#include "core/analysis/PositionalAnalysis.h"
#include "ui/base/ColorMap.h"
#include "ui/base/PlotHelpers.h"
#include "ui/base/QCustomPlotInclude.h"

#include <QLabel>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace ui {

CurvePlot::CurvePlot(QWidget* parent) : QWidget(parent) {
    auto* v = new QVBoxLayout(this);
    v->setContentsMargins(0, 0, 0, 0);
    plot_ = makePlot(tr("Chosen dimensions against position"));
    plot_->xAxis->setLabel(tr("position"));
    plot_->yAxis->setLabel(tr("PE(pos, dim)"));
    plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot_->axisRect()->setRangeZoom(Qt::Horizontal);
    plot_->axisRect()->setRangeDrag(Qt::Horizontal);
    // The legend gets its own row under the axes, so it never hides a curve.
    plot_->legend->setVisible(true);
    plot_->axisRect()->insetLayout()->take(plot_->legend);
    plot_->plotLayout()->addElement(2, 0, plot_->legend);
    plot_->plotLayout()->setRowStretchFactor(2, 0.001);
    plot_->legend->setFillOrder(QCPLegend::foColumnsFirst);
    plot_->legend->setWrap(6);
    plot_->legend->setBorderPen(Qt::NoPen);
    plot_->legend->setFont(QFont(plot_->font().family(), 8));
    v->addWidget(plot_);
    note_ = new QLabel(this);
    note_->setObjectName(QStringLiteral("curveNote"));
    note_->setWordWrap(true);
    note_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    note_->hide();
    v->addWidget(note_);
}

QString CurvePlot::noteText() const {
    return note_->text();
}

CurvePlot::~CurvePlot() = default;

void CurvePlot::showCurves(const std::vector<float>& table, int columns, int positions,
                           const QVector<int>& dims, bool sinusoidal) {
    plot_->clearGraphs();
    const int d = columns, n = positions;
    // Between whole positions a sinusoidal column is its formula; drawn finely, a fast one is a wave, not
    // the zig-zag joining its samples would make.
    constexpr int kFine = 8;
    QVector<double> x(n), fineX;
    for (int pos = 0; pos < n; ++pos)
        x[pos] = pos;
    for (int s = 0; s <= (n - 1) * kFine; ++s)
        fineX << double(s) / kFine;
    QStringList coarse;
    for (int j = 0; j < dims.size(); ++j) {
        const int dim = dims[j];
        QVector<double> y(n);
        for (int pos = 0; pos < n; ++pos)
            y[pos] = table[static_cast<size_t>(pos) * d + dim];
        auto* line = plot_->addGraph();
        auto* dots = plot_->addGraph();
        line->setPen(QPen(ColorMap::categorical(j), 1.5));
        dots->setPen(QPen(ColorMap::categorical(j), 1.5));
        dots->setLineStyle(QCPGraph::lsNone);
        dots->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, n <= 256 ? 4 : 2));
        dots->removeFromLegend();
        dots->setData(x, y, true);
        QString name = tr("dim %1").arg(dim);
        if (sinusoidal) {
            const int pair = dim / 2;
            const double theta = core::sinusoidalFrequency(pair, d);
            QVector<double> fineY;
            for (const double p : fineX)
                fineY << (dim % 2 == 0 ? std::sin(p * theta) : std::cos(p * theta));
            line->setData(fineX, fineY, true);
            name += (dim % 2 == 0 ? tr(": sin(pos·θ%1)") : tr(": cos(pos·θ%1)")).arg(subscript(pair));
            const double period = core::sinusoidalPeriod(pair, d);
            if (period < core::kSmoothSamplesPerPeriod)
                coarse << tr("dim %1 (a period every %2 positions)").arg(dim).arg(period, 0, 'f', 1);
        } else {
            line->setData(x, y, true);
            // No formula: a column that turns at most positions is varying faster than whole positions show.
            int turns = 0;
            for (int pos = 2; pos < n; ++pos)
                turns += (y[pos] - y[pos - 1]) * (y[pos - 1] - y[pos - 2]) < 0 ? 1 : 0;
            if (n > 8 && turns > (n - 2) / 3)
                coarse << tr("dim %1 (turns at %2 of %3 positions)").arg(dim).arg(turns).arg(n - 2);
        }
        line->setName(name);
    }
    // A learned column that turns at most positions is rough, not aliased: there is no smooth signal that
    // whole positions would under-sample, only numbers that go up and down.
    note_->setText(coarse.isEmpty() ? QString()
                   : sinusoidal
                       ? tr("Too fast for whole positions: %1. The table holds the dots only; the line "
                            "between them is the formula.")
                             .arg(coarse.join(QStringLiteral(", ")))
                       : tr("Rough: %1. A learned column has no formula between positions; the line only "
                            "joins its dots, and its ups and downs are what training left there.")
                             .arg(coarse.join(QStringLiteral(", "))));
    note_->setVisible(!coarse.isEmpty());
    plot_->xAxis->setRange(0, std::max(1, n - 1));
    plot_->yAxis->rescale();
    const auto r = plot_->yAxis->range();
    plot_->yAxis->setRange(r.lower - 0.05 * r.size(), r.upper + 0.05 * r.size());
    plot_->legend->setVisible(!dims.isEmpty());
    plot_->replot();
}

void CurvePlot::clear() {
    plot_->clearGraphs();
}

int CurvePlot::curveCount() const {
    return plot_->graphCount() / 2; // a line and its dots per dimension
}

} // namespace ui
