#include "ui/CandidatesChart.h"

#include "ui/QCustomPlotInclude.h"
#include "ui/TokenText.h"

#include <QToolTip>
#include <QVBoxLayout>

#include <cmath>

namespace ui {

namespace {
constexpr int kTickChars = 14; // characters of a token in the bars' labels
} // namespace

CandidatesChart::CandidatesChart(QWidget* parent) : QWidget(parent) {
    plot_ = new QCustomPlot(this);
    plot_->setObjectName(QStringLiteral("candidatesPlot"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_);
    // Horizontal bars: the token labels stay readable, the most likely on top.
    bars_ = new QCPBars(plot_->yAxis, plot_->xAxis);
    bars_->setWidth(0.7);
    bars_->setPen(Qt::NoPen);
    bars_->setBrush(QColor(0x3b, 0x52, 0x8b));
    plot_->xAxis->setRange(0, 1);
    plot_->xAxis->setLabel(tr("probability of the next token"));
    plot_->yAxis->setRangeReversed(true);
    plot_->yAxis->grid()->setVisible(false);
    plot_->setToolTip(tr("The most likely next tokens. Click a bar to force that token; the decode branches"
                         " from there."));
    plot_->setMouseTracking(true);
    connect(plot_, &QCustomPlot::mouseRelease, this, [this](QMouseEvent* e) {
        const int i = barAt(e->position().toPoint());
        // After <eos> or at max_len the run is over: a token forced there would continue past the end.
        if (i >= 0 && e->button() == Qt::LeftButton && !finished_)
            Q_EMIT forceRequested(top_[std::size_t(i)].id);
    });
    connect(plot_, &QCustomPlot::mouseMove, this, [this](QMouseEvent* e) {
        const int i = barAt(e->position().toPoint());
        if (i < 0) {
            QToolTip::hideText();
            return;
        }
        const auto& c = top_[std::size_t(i)];
        QToolTip::showText(e->globalPosition().toPoint(),
                           (finished_ ? tr("“%1” (id %2): p = %3\ndecoding has finished")
                                      : tr("“%1” (id %2): p = %3\nclick to force it"))
                               .arg(tokenDisplayText({c.id, c.text.toStdString(), false, false}))
                               .arg(c.id)
                               .arg(c.probability, 0, 'f', 4),
                           plot_);
    });
    setMinimumHeight(160);
}

void CandidatesChart::setCandidates(const std::vector<Candidate>& top, bool finished) {
    top_ = top;
    finished_ = finished;
    QVector<double> keys, values;
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    for (int i = 0; i < static_cast<int>(top_.size()); ++i) {
        const auto& c = top_[std::size_t(i)];
        keys << i;
        values << c.probability;
        // The tooltip has the whole token.
        ticker->addTick(
            i, QStringLiteral("%1  %2")
                   .arg(elided(tokenDisplayText({c.id, c.text.toStdString(), false, false}), kTickChars))
                   .arg(c.probability, 0, 'f', 3));
    }
    bars_->setData(keys, values, true);
    plot_->yAxis->setTicker(ticker);
    plot_->yAxis->setRange(-0.6, std::max<double>(static_cast<double>(top_.size()), 1.0) - 0.4);
    double maxP = 0;
    for (double v : values)
        maxP = std::max(maxP, v);
    plot_->xAxis->setRange(0, maxP > 0.5 ? 1.0 : std::ceil(maxP * 10.0 + 1e-9) / 10.0 + 1e-9);
    bars_->setBrush(finished ? QColor(0xa0, 0xa0, 0xa0) : QColor(0x3b, 0x52, 0x8b));
    plot_->xAxis->setLabel(finished ? tr("finished: <eos> or max length")
                                    : tr("probability of the next token"));
    // Queued: an immediate replot repaints at once, and with it every widget of the window waiting for
    // a repaint (the grid, the heatmap), inside the call that brought the new result.
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

int CandidatesChart::barAt(const QPoint& pos) const {
    if (top_.empty() || !plot_->axisRect()->rect().contains(pos))
        return -1;
    const double key = plot_->yAxis->pixelToCoord(pos.y());
    const int i = static_cast<int>(std::lround(key));
    if (i < 0 || i >= static_cast<int>(top_.size()) || std::abs(key - i) > 0.45)
        return -1;
    return i;
}

QPoint CandidatesChart::barCenter(int index) const {
    if (index < 0 || index >= static_cast<int>(top_.size()))
        return {};
    const double x = plot_->xAxis->coordToPixel(top_[std::size_t(index)].probability / 2.0);
    const double y = plot_->yAxis->coordToPixel(index);
    return plot_->mapTo(const_cast<CandidatesChart*>(this), QPoint(static_cast<int>(x), static_cast<int>(y)));
}

} // namespace ui
