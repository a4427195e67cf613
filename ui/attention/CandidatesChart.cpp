#include "ui/attention/CandidatesChart.h"

#include "core/model/Model.h"
#include "ui/base/AttentionText.h"
#include "ui/base/QCustomPlotInclude.h"
#include "ui/base/TokenText.h"

#include <QFontMetrics>
#include <QStringList>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace ui {

namespace {
constexpr int kTickChars = 14; // characters of a token in the bars' labels
const QColor kDrawn(0x3b, 0x52, 0x8b);
const QColor kModel(0xc9, 0xd3, 0xea);
const QColor kChosen(0xe6, 0x7e, 0x22); // the outline of the newest token in the strip: what Step adds

// Each line of `text` broken between words so that no line is wider than `width` (a single long word
// stays whole).
QString wrapped(const QString& text, const QFontMetrics& fm, int width) {
    QStringList out;
    for (const QString& line : text.split(QLatin1Char('\n'))) {
        QString current;
        for (const QString& word : line.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
            const QString longer = current.isEmpty() ? word : current + QLatin1Char(' ') + word;
            if (!current.isEmpty() && fm.horizontalAdvance(longer) > width) {
                out << current;
                current = word;
            } else {
                current = longer;
            }
        }
        out << current;
    }
    return out.join(QLatin1Char('\n'));
}
} // namespace

CandidatesChart::CandidatesChart(QWidget* parent) : QWidget(parent) {
    plot_ = new QCustomPlot(this);
    plot_->setObjectName(QStringLiteral("candidatesPlot"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_);
    // Horizontal bars: the token labels stay readable, the most likely on top.
    model_ = new QCPBars(plot_->yAxis, plot_->xAxis);
    bars_ = new QCPBars(plot_->yAxis, plot_->xAxis);
    chosenBar_ = new QCPBars(plot_->yAxis, plot_->xAxis);
    model_->setWidth(0.7);
    model_->setPen(Qt::NoPen);
    model_->setBrush(kModel);
    bars_->setWidth(0.45);
    bars_->setPen(Qt::NoPen);
    bars_->setBrush(kDrawn);
    chosenBar_->setWidth(0.7);
    chosenBar_->setPen(QPen(kChosen, 2));
    chosenBar_->setBrush(Qt::NoBrush);
    plot_->xAxis->setRange(0, 1);
    plot_->yAxis->setRangeReversed(true);
    plot_->yAxis->grid()->setVisible(false);
    plot_->setToolTip(
        tr("The distribution Step draws from: the model's probabilities (pale) after temperature, "
           "top-k and top-p (dark). The outlined token is the one Step takes next. Click a bar or "
           "its label to force that token; the decode branches from there."));
    plot_->setMouseTracking(true);
    // A narrow pane or large fonts (presentation mode) would run the ticks into each other and cut the
    // label: both are fitted to the width at every replot.
    connect(plot_, &QCustomPlot::beforeReplot, this, &CandidatesChart::fitAxisToWidth);
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
        QString tip = tr("“%1” (id %2): the model gives p = %3")
                          .arg(tokenDisplayText({c.id, c.text.toStdString(), false, false}))
                          .arg(c.id)
                          .arg(c.probability, 0, 'f', 4);
        if (!sampling_.greedy)
            tip += c.cut ? tr("\ncut by top-k or top-p: never drawn")
                         : tr("\ndrawn with p = %1 after temperature and the cuts").arg(c.sampled, 0, 'f', 4);
        if (c.id == chosen_)
            tip += tr("\nStep takes this token next");
        tip += finished_ ? tr("\ndecoding has finished") : tr("\nclick to force it");
        QToolTip::showText(e->globalPosition().toPoint(), tip, plot_);
    });
    setMinimumHeight(160);
}

void CandidatesChart::setResult(const RunResultPtr& result) {
    result_ = result;
    rebuild();
}

void CandidatesChart::setSampling(const core::SamplingSettings& s) {
    sampling_ = s;
    rebuild();
}

double CandidatesChart::shownValue(const Candidate& c) const {
    return sampling_.greedy ? c.probability : c.sampled;
}

void CandidatesChart::rebuild() {
    top_.clear();
    chosen_ = -1;
    finished_ = result_ && result_->finished;
    const int maskRow = result_ && result_->snapshot ? result_->snapshot->maskRow : -1;
    const bool mask = maskRow >= 0;
    core::SamplingPipeline pipe;
    // A finished run draws nothing more: its next distribution would only be a greyed picture of a step
    // that will not come (a masked-LM head's answer is the exception: it is the result).
    if (result_ && result_->snapshot && !result_->snapshot->nextTokenLogProbs.empty() &&
        (!finished_ || mask)) {
        // The same pipeline Step runs, at the same point of its random stream (the target's length).
        const auto& snap = *result_->snapshot;
        // A masked-LM head's answer is not drawn from: its probabilities are shown as the model gives them.
        pipe = core::samplingPipeline(snap.nextTokenLogProbs, mask ? core::SamplingSettings{} : sampling_,
                                      static_cast<int64_t>(snap.tgtTokens.size()), kShown);
        const auto& vocab = result_->model->targetTokenizer().vocab();
        for (const auto& pc : pipe.candidates)
            top_.push_back({pc.id, utf8WithByteMarks(vocab.token(pc.id)), std::exp(double(pc.logProb)),
                            pc.kept, !pc.inTopP});
        if (!finished_)
            chosen_ = pipe.chosen;
    }
    QVector<double> keys, model, drawn, chosenKey, chosenValue;
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    double maxP = 0;
    for (int i = 0; i < static_cast<int>(top_.size()); ++i) {
        const auto& c = top_[std::size_t(i)];
        keys << i;
        model << (sampling_.greedy ? 0.0 : c.probability);
        drawn << shownValue(c);
        if (c.id == chosen_) {
            chosenKey << i;
            chosenValue << std::max(shownValue(c), sampling_.greedy ? 0.0 : c.probability);
        }
        maxP = std::max({maxP, c.probability, shownValue(c)});
        // The tooltip has the whole token.
        const QString value = c.cut && !sampling_.greedy ? tr("cut") : QString::number(shownValue(c), 'f', 3);
        ticker->addTick(
            i, QStringLiteral("%1  %2")
                   .arg(elided(tokenDisplayText({c.id, c.text.toStdString(), false, false}), kTickChars))
                   .arg(value));
    }
    model_->setData(keys, model, true);
    bars_->setData(keys, drawn, true);
    chosenBar_->setData(chosenKey, chosenValue, true);
    plot_->yAxis->setTicker(ticker);
    plot_->yAxis->setRange(-0.6, std::max<double>(static_cast<double>(top_.size()), 1.0) - 0.4);
    plot_->xAxis->setRange(0, maxP > 0.5 ? 1.0 : std::ceil(maxP * 10.0 + 1e-9) / 10.0 + 1e-9);
    bars_->setBrush(finished_ && !mask ? QColor(0xa0, 0xa0, 0xa0) : kDrawn);
    // No bars (the run has finished): an empty probability scale would only look like a chart of nothing.
    const bool bars = !top_.empty();
    plot_->xAxis->setTicks(bars);
    plot_->xAxis->setTickLabels(bars);
    plot_->xAxis->grid()->setVisible(bars);
    const QPen line = bars ? QPen(Qt::black, 0, Qt::SolidLine, Qt::SquareCap) : QPen(Qt::NoPen); // QCP's own
    plot_->xAxis->setBasePen(line);
    plot_->yAxis->setBasePen(line);
    QString axis;
    if (mask)
        axis = tr("what the masked-LM head puts at [MASK] (token %1)").arg(maskRow);
    else if (finished_)
        axis = AttentionText::endingText(
            result_->ending,
            static_cast<int64_t>(result_->snapshot ? result_->snapshot->tgtTokens.size() : 0));
    else if (sampling_.greedy)
        axis = tr("probability of the next token (greedy)");
    else
        axis = (pipe.keptCount == 1 ? tr("drawn from %1 token\nT %2 · top-k %3 · top-p %4")
                                    : tr("drawn from %1 tokens\nT %2 · top-k %3 · top-p %4"))
                   .arg(pipe.keptCount)
                   .arg(sampling_.temperature, 0, 'g', 3)
                   .arg(sampling_.topK > 0 ? QString::number(sampling_.topK) : tr("off"))
                   .arg(sampling_.topP, 0, 'g', 3);
    axisText_ = axis;
    // Queued: an immediate replot repaints at once, and with it every widget of the window waiting for
    // a repaint (the grid, the heatmap), inside the call that brought the new result.
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

QString CandidatesChart::axisText() const {
    return axisText_;
}

void CandidatesChart::fitAxisToWidth() {
    auto* x = plot_->xAxis;
    const QFontMetrics ticks(x->tickLabelFont());
    // A tick label ("0.25") and as much space again between two of them.
    const int perTick = 2 * ticks.horizontalAdvance(QStringLiteral("0.25"));
    x->ticker()->setTickCount(std::clamp(plot_->axisRect()->width() / std::max(perTick, 1), 1, 5));
    // The label is centred under the bars, which sit right of their token labels: the room is twice the
    // distance from that centre to the chart's right edge.
    const int room = 2 * (plot_->viewport().right() + 1 - plot_->axisRect()->center().x()) - 8;
    const QString label =
        wrapped(axisText_, QFontMetrics(x->labelFont()), room); // the viewport: a figure's too
    if (label != x->label()) {
        x->setLabel(label);
        // The room was measured on the last layout; new fonts move the bars, so look again once laid out.
        plot_->replot(QCustomPlot::rpQueuedReplot);
    }
}

int CandidatesChart::barAt(const QPoint& pos) const {
    // A bar's row, from the left edge (its label) to the right: the label is what a reader points at.
    const QRect area = plot_->axisRect()->rect();
    if (top_.empty() || pos.y() < area.top() || pos.y() > area.bottom() || pos.x() < 0 ||
        pos.x() > area.right())
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
    const auto& c = top_[std::size_t(index)];
    const double x = plot_->xAxis->coordToPixel(std::max(shownValue(c), 1e-3) / 2.0);
    const double y = plot_->yAxis->coordToPixel(index);
    return plot_->mapTo(const_cast<CandidatesChart*>(this), QPoint(static_cast<int>(x), static_cast<int>(y)));
}

QPoint CandidatesChart::labelCenter(int index) const {
    if (index < 0 || index >= static_cast<int>(top_.size()))
        return {};
    const double y = plot_->yAxis->coordToPixel(index);
    const int x = plot_->axisRect()->rect().left() / 2; // in the tick labels' margin
    return plot_->mapTo(const_cast<CandidatesChart*>(this), QPoint(x, static_cast<int>(y)));
}

} // namespace ui
