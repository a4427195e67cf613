#include "ui/inside/SamplingChart.h"

#include "ui/base/QCustomPlotInclude.h"
#include "ui/base/TokenText.h"

#include <QLabel>
#include <QToolTip>
#include <QVBoxLayout>

#include <cmath>

namespace ui {

namespace {

constexpr int kShown = 12; // candidates drawn as bars (the JSON export keeps all the pipeline has)

QString tokenText(const core::SamplingPipeline::Candidate& c) {
    return tokenDisplayText({c.id, c.text, false, false});
}

QString percent(double p) {
    return QStringLiteral("%1%").arg(p * 100.0, 0, 'f', p < 0.001 ? 3 : 1);
}

} // namespace

SamplingChart::SamplingChart(QWidget* parent) : QWidget(parent) {
    summary_ = new QLabel(this);
    summary_->setObjectName(QStringLiteral("samplingSummary"));
    summary_->setWordWrap(true);
    summary_->setTextFormat(Qt::PlainText);
    // A wrapped label's height is not part of the layout's minimum: three lines reserved, or the plot
    // below is pushed past the box's bottom and its legend cut.
    summary_->setMinimumHeight(summary_->fontMetrics().lineSpacing() * 3);
    plot_ = new QCustomPlot(this);
    plot_->setObjectName(QStringLiteral("samplingPlot"));
    // Ten rows of bars each a label high, the probability axis and the three legend rows below.
    plot_->setMinimumHeight(340);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(summary_);
    layout->addWidget(plot_, 1);
    // Horizontal bars, most likely on top; each row is a token: after the temperature (kept blue, cut grey)
    // and, offset below it, the renormalised probability the draw uses (orange).
    tempered_ = new QCPBars(plot_->yAxis, plot_->xAxis);
    cut_ = new QCPBars(plot_->yAxis, plot_->xAxis);
    kept_ = new QCPBars(plot_->yAxis, plot_->xAxis);
    tempered_->setName(tr("after ÷ temperature, kept"));
    cut_->setName(tr("cut by top-k / top-p"));
    kept_->setName(tr("renormalised: what the draw uses"));
    for (auto* b : {tempered_, cut_, kept_}) {
        b->setWidth(0.36);
        b->setPen(Qt::NoPen);
    }
    tempered_->setBrush(QColor(0x3b, 0x52, 0x8b));
    cut_->setBrush(QColor(0xc8, 0xc8, 0xc8));
    kept_->setBrush(QColor(0xe0, 0x8a, 0x1e));
    plot_->xAxis->setRange(0, 1);
    plot_->xAxis->setLabel(tr("probability"));
    plot_->yAxis->setRangeReversed(true);
    plot_->yAxis->grid()->setVisible(false);
    plot_->legend->setVisible(true);
    plot_->legend->setFont(QFont(font().family(), 8));
    // The legend in a row of its own under the axes: inside them it covered the bars of the last tokens.
    plot_->axisRect()->insetLayout()->take(plot_->legend);
    plot_->axisRect()->insetLayout()->simplify();
    const int row = plot_->plotLayout()->rowCount();
    plot_->plotLayout()->addElement(row, 0, plot_->legend);
    plot_->plotLayout()->setRowStretchFactor(row, 0.001);
    // One name a row: side by side the three names would set the chart's least width (about 500 px).
    plot_->legend->setBorderPen(Qt::NoPen);
    plot_->setMouseTracking(true);
    connect(plot_, &QCustomPlot::mouseMove, this, [this](QMouseEvent* e) {
        const int i = barAt(e->position().toPoint());
        if (i < 0) {
            QToolTip::hideText();
            return;
        }
        const auto& c = pipeline_.candidates[std::size_t(i)];
        QToolTip::showText(e->globalPosition().toPoint(),
                           tr("“%1” (id %2)\nlog-probability %3\nafter ÷ temperature: %4\n%5")
                               .arg(tokenText(c))
                               .arg(c.id)
                               .arg(c.logProb, 0, 'f', 4)
                               .arg(percent(c.tempered))
                               .arg(pipeline_.settings.greedy && !c.inTopP
                                        ? tr("not the most likely token: greedy decoding takes only that one")
                                    : !c.inTopK ? tr("cut by top-k")
                                    : !c.inTopP ? tr("cut by top-p")
                                                : tr("kept: drawn with probability %1").arg(percent(c.kept))),
                           plot_);
    });
}

void SamplingChart::setPipeline(const core::SamplingPipeline& p) {
    pipeline_ = p;
    QVector<double> keys, temperedKept, temperedCut, kept, keptKeys;
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    const int n = std::min<int>(kShown, static_cast<int>(p.candidates.size()));
    double top = 0.0;
    for (int i = 0; i < n; ++i) {
        const auto& c = p.candidates[std::size_t(i)];
        keys << i - 0.18;
        keptKeys << i + 0.18;
        temperedKept << (c.inTopP ? c.tempered : 0.0);
        temperedCut << (c.inTopP ? 0.0 : c.tempered);
        kept << c.kept;
        top = std::max({top, c.tempered, c.kept});
        ticker->addTick(i, (c.id == p.chosen ? QStringLiteral("▶ ") : QString()) + elided(tokenText(c), 14));
    }
    tempered_->setData(keys, temperedKept, true);
    cut_->setData(keys, temperedCut, true);
    kept_->setData(keptKeys, kept, true);
    plot_->yAxis->setTicker(ticker);
    plot_->yAxis->setRange(-0.6, std::max(n, 1) - 0.4);
    plot_->xAxis->setRange(0, top > 0.5 ? 1.0 : std::ceil(top * 10.0 + 1e-9) / 10.0 + 1e-9);
    summary_->setText(summary());
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

QString SamplingChart::summary() const {
    const auto& p = pipeline_;
    const auto& s = p.settings;
    QString chosen;
    for (const auto& c : p.candidates)
        if (c.id == p.chosen)
            chosen = tokenText(c);
    if (chosen.isEmpty())
        chosen = tokenDisplayText({p.chosen, p.chosenText, false, false});
    if (p.ending == core::RunEnding::ReadsOnly)
        return tr("This model reads its text and decodes nothing: no token is drawn. What it gives is this "
                  "distribution (a classifier's classes, a masked-LM head's tokens at [MASK]), “%1” first "
                  "(%2 of the mass).")
            .arg(chosen, percent(p.candidates.empty() ? 0.0 : p.candidates.front().tempered));
    if (p.finished)
        return tr("Decoding has finished (%1): Step draws nothing more. The model's most likely next token "
                  "would be “%2” (%3 of the mass).")
            .arg(p.ending == core::RunEnding::Eos ? tr("the model decoded <eos>")
                                                  : tr("the target reached the model's max length"),
                 chosen, percent(p.candidates.empty() ? 0.0 : p.candidates.front().tempered));
    if (s.greedy)
        return tr("Next token, greedy: the most likely of %1 tokens, “%2” (%3 of the mass).")
            .arg(p.vocabulary)
            .arg(chosen, percent(p.keptMass));
    return tr("Next token: log-probabilities ÷ temperature %1 → top-k %2 → top-p %3 → %4 of %5 tokens kept "
              "(%6 of the mass), renormalised → drawn with seed %7 at step %8: “%9”.")
        .arg(s.temperature)
        .arg(s.topK > 0 ? QString::number(s.topK) : tr("off"))
        .arg(s.topP < 1.0 ? QString::number(s.topP) : tr("off"))
        .arg(p.keptCount)
        .arg(p.vocabulary)
        .arg(percent(p.keptMass))
        .arg(s.seed)
        .arg(p.step)
        .arg(chosen);
}

int SamplingChart::barAt(const QPoint& pos) const {
    const int n = std::min<int>(kShown, static_cast<int>(pipeline_.candidates.size()));
    if (n == 0 || !plot_->axisRect()->rect().contains(pos))
        return -1;
    const double key = plot_->yAxis->pixelToCoord(pos.y());
    const int i = static_cast<int>(std::lround(key));
    return i >= 0 && i < n && std::abs(key - i) <= 0.45 ? i : -1;
}

} // namespace ui
