#include "ui/train/TrainCurve.h"

#include "ui/base/QCustomPlotInclude.h"

#include <QVBoxLayout>

namespace ui {

TrainCurve::TrainCurve(QWidget* parent) : QWidget(parent) {
    plot_ = new QCustomPlot(this);
    plot_->setObjectName(QStringLiteral("lossPlot"));
    plot_->setPlottingHint(QCP::phFastPolylines, true); // as makePlot: long curves replot in ms, not 100s
    plot_->setToolTip(tr("Training loss (label-smoothed cross-entropy) and exact-match accuracy; for the "
                         "induction task also the best head's induction and previous-token scores, with a "
                         "dashed line where the induction score first reaches 0.5"));
    plot_->addGraph();
    plot_->graph(0)->setName(tr("loss"));
    plot_->addGraph(plot_->xAxis, plot_->yAxis2);
    plot_->graph(1)->setName(tr("accuracy"));
    plot_->graph(1)->setPen(QPen(QColor(0xe6, 0x7e, 0x22), 2));
    plot_->graph(1)->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 6));
    // The head scores of an induction run, on the metric's 0–1 axis; out of the legend until measured.
    const std::pair<QString, QColor> heads[] = {{tr("best induction score"), QColor(0x8e, 0x44, 0xad)},
                                                {tr("best previous-token score"), QColor(0x27, 0xae, 0x60)}};
    for (const auto& [name, colour] : heads) {
        auto* g = plot_->addGraph(plot_->xAxis, plot_->yAxis2);
        g->setName(name);
        g->setPen(QPen(colour, 2));
        g->removeFromLegend();
    }
    formedLine_ = new QCPItemStraightLine(plot_);
    formedLine_->setPen(QPen(QColor(0x8e, 0x44, 0xad), 1, Qt::DashLine));
    formedLine_->setVisible(false);
    formedLabel_ = new QCPItemText(plot_);
    formedLabel_->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
    formedLabel_->position->setTypeX(QCPItemPosition::ptPlotCoords);
    formedLabel_->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    formedLabel_->setColor(QColor(0x8e, 0x44, 0xad));
    formedLabel_->setBrush(QBrush(QColor(255, 255, 255, 220))); // readable over the curves it crosses
    formedLabel_->setPadding(QMargins(3, 2, 3, 2));
    formedLabel_->setVisible(false);
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
    for (int g = 0; g < plot_->graphCount(); ++g)
        plot_->graph(g)->data()->clear();
    plot_->graph(2)->removeFromLegend();
    plot_->graph(3)->removeFromLegend();
    formed_ = -1;
    plot_->yAxis2->setLabel(tr("exact match"));
    plot_->yAxis2->setRange(0, 1); // a perplexity run before may have stretched it
    formedLine_->setVisible(false);
    formedLabel_->setVisible(false);
    plot_->xAxis->setRange(0, static_cast<double>(total));
    plot_->replot();
}

void TrainCurve::add(const TrainProgress& p) {
    plot_->graph(0)->addData(static_cast<double>(p.step), p.loss);
    if (p.accuracy >= 0) {
        plot_->graph(1)->addData(static_cast<double>(p.step), p.accuracy);
        // A continued command-line run may measure chrF or perplexity instead of exact match.
        plot_->graph(1)->setName(p.metric);
        plot_->yAxis2->setLabel(p.induction >= 0 ? tr("%1 · head scores").arg(p.metric) : p.metric);
        if (p.metric == QLatin1String("perplexity"))
            plot_->graph(1)->rescaleValueAxis(false, true);
        else
            plot_->yAxis2->setRange(0, 1);
    }
    if (p.induction >= 0) {
        if (plot_->graph(2)->dataCount() == 0) {
            plot_->graph(2)->addToLegend();
            plot_->graph(3)->addToLegend();
            plot_->yAxis2->setLabel(tr("%1 · head scores").arg(p.metric));
        }
        plot_->graph(2)->addData(static_cast<double>(p.step), p.induction);
        plot_->graph(3)->addData(static_cast<double>(p.step), p.previous);
        if (formed_ < 0 && p.induction >= kFormed) {
            formed_ = p.step;
            const double x = static_cast<double>(p.step);
            formedLine_->point1->setCoords(x, 0);
            formedLine_->point2->setCoords(x, 1);
            formedLine_->setVisible(true);
            formedLabel_->position->setCoords(x, 0.16);
            // Beside the line on the side with room: right of it in the run's first half, left after.
            const bool late = x > plot_->xAxis->range().center();
            formedLabel_->setPositionAlignment((late ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignTop);
            formedLabel_->setText(tr("induction head forms (step %1)").arg(p.step));
            formedLabel_->setVisible(true);
        }
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
    if (p.induction >= 0)
        text += tr(" · best heads: induction %1, previous token %2")
                    .arg(p.induction, 0, 'f', 3)
                    .arg(p.previous, 0, 'f', 3);
    return text;
}

} // namespace ui
