#include "ui/CurvePlot.h"

#include "ui/PlotHelpers.h"
#include "ui/QCustomPlotInclude.h"

#include <QVBoxLayout>

#include <algorithm>

namespace ui {

namespace {

QColor curveColor(int j) {
    // Tableau's ten categorical colours: distinct on screen and for the common colour-vision deficiencies.
    static const QRgb palette[] = {0x1f77b4, 0xff7f0e, 0x2ca02c, 0xd62728, 0x9467bd,
                                   0x8c564b, 0xe377c2, 0x7f7f7f, 0xbcbd22, 0x17becf};
    return QColor(palette[j % 10]);
}

} // namespace

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
}

CurvePlot::~CurvePlot() = default;

void CurvePlot::showCurves(const std::vector<float>& table, int columns, int positions,
                           const QVector<int>& dims, bool sinusoidal) {
    plot_->clearGraphs();
    const int d = columns, n = positions;
    QVector<double> x(n);
    for (int pos = 0; pos < n; ++pos)
        x[pos] = pos;
    for (int j = 0; j < dims.size(); ++j) {
        const int dim = dims[j];
        QVector<double> y(n);
        for (int pos = 0; pos < n; ++pos)
            y[pos] = table[static_cast<size_t>(pos) * d + dim];
        auto* g = plot_->addGraph();
        g->setData(x, y, true);
        g->setPen(QPen(curveColor(j), 1.5));
        QString name = tr("dim %1").arg(dim);
        if (sinusoidal)
            name += (dim % 2 == 0 ? tr(": sin(pos·θ%1)") : tr(": cos(pos·θ%1)")).arg(subscript(dim / 2));
        g->setName(name);
    }
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
    return plot_->graphCount();
}

} // namespace ui
