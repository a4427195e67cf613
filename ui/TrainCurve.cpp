#include "ui/TrainCurve.h"

#include "ui/QCustomPlotInclude.h"

#include <QVBoxLayout>

namespace ui {

TrainCurve::TrainCurve(QWidget* parent) : QWidget(parent) {
    plot_ = new QCustomPlot(this);
    plot_->setObjectName(QStringLiteral("lossPlot"));
    plot_->setPlottingHint(QCP::phFastPolylines, true); // as makePlot: long curves replot in ms, not 100s
    plot_->setToolTip(tr("Training loss (label-smoothed cross-entropy) and exact-match accuracy"));
    plot_->addGraph();
    plot_->graph(0)->setName(tr("loss"));
    plot_->addGraph(plot_->xAxis, plot_->yAxis2);
    plot_->graph(1)->setName(tr("accuracy"));
    plot_->graph(1)->setPen(QPen(QColor(0xe6, 0x7e, 0x22), 2));
    plot_->graph(1)->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 6));
    plot_->xAxis->setLabel(tr("step"));
    plot_->yAxis->setLabel(tr("loss"));
    plot_->yAxis2->setVisible(true);
    plot_->yAxis2->setLabel(tr("exact match"));
    plot_->yAxis2->setRange(0, 1);
    plot_->legend->setVisible(true);
    plot_->setMinimumHeight(200);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_);
}

void TrainCurve::clear(int64_t total) {
    plot_->graph(0)->data()->clear();
    plot_->graph(1)->data()->clear();
    plot_->xAxis->setRange(0, static_cast<double>(total));
    plot_->replot();
}

void TrainCurve::add(const TrainProgress& p) {
    plot_->graph(0)->addData(static_cast<double>(p.step), p.loss);
    if (p.accuracy >= 0) {
        plot_->graph(1)->addData(static_cast<double>(p.step), p.accuracy);
        // A continued command-line run may measure chrF or perplexity instead of exact match.
        plot_->graph(1)->setName(p.metric);
        plot_->yAxis2->setLabel(p.metric);
        if (p.metric == QLatin1String("perplexity"))
            plot_->graph(1)->rescaleValueAxis(false, true);
        else
            plot_->yAxis2->setRange(0, 1);
    }
    plot_->graph(0)->rescaleValueAxis(false, true);
    plot_->yAxis->setRangeLower(0);
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

int TrainCurve::lossPoints() const {
    return plot_->graph(0)->dataCount();
}

QString TrainCurve::describe(const TrainProgress& p) {
    QString text = tr("step %1 of %2 · loss %3 · %4 tokens/s · %5 s")
                       .arg(p.step)
                       .arg(p.total)
                       .arg(p.loss, 0, 'f', 3)
                       .arg(p.tokensPerSecond, 0, 'f', 0)
                       .arg(p.elapsedSeconds, 0, 'f', 0);
    if (p.accuracy >= 0)
        text += p.metric == QLatin1String("perplexity")
                    ? tr(" · held-out perplexity %1").arg(p.accuracy, 0, 'f', 2)
                : p.metric == QLatin1String("chrF")
                    ? tr(" · chrF %1").arg(100.0 * p.accuracy, 0, 'f', 1)
                    : tr(" · exact match %1%").arg(100.0 * p.accuracy, 0, 'f', 1);
    return text;
}

} // namespace ui
