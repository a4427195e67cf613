#include "ui/attention/ClassifierView.h"

#include "ui/base/ColorMap.h"
#include "ui/base/QCustomPlotInclude.h"
#include "ui/base/TokenText.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace ui {

namespace {

constexpr int kMaxPadded = 4096;
const QColor kToward(0xd6, 0x27, 0x28); // the predicted class's side
const QColor kAgainst(0x1f, 0x77, 0xb4);
const QColor kPadding(0xb0, 0xb0, 0xb0);

QString percent(double p) {
    // Enough digits that a confident answer does not read as a flat 100%.
    return p >= 0.999 || p <= 0.001 ? QString::number(100.0 * p, 'f', 3) + QLatin1Char('%')
                                    : QString::number(100.0 * p, 'f', 1) + QLatin1Char('%');
}

// Blue below zero, white at zero, red above: the BiLSTM's outputs lie in (−1, 1).
QCPColorGradient diverging() {
    QCPColorGradient g;
    g.setColorStopAt(0.0, QColor(0x31, 0x5f, 0xa8));
    g.setColorStopAt(0.5, Qt::white);
    g.setColorStopAt(1.0, QColor(0xb2, 0x22, 0x22));
    return g;
}

QCPAxisRect* addRect(QCustomPlot* plot, int row, const QString& label, QCPMarginGroup* group) {
    auto* rect = row == 0 ? plot->axisRect() : new QCPAxisRect(plot);
    if (row > 0)
        plot->plotLayout()->addElement(row, 0, rect);
    rect->axis(QCPAxis::atLeft)->setLabel(label);
    rect->axis(QCPAxis::atBottom)->setTickLabels(false);
    rect->axis(QCPAxis::atBottom)->setTicks(false);
    rect->axis(QCPAxis::atBottom)->grid()->setVisible(false);
    rect->setMarginGroup(QCP::msLeft | QCP::msRight, group);
    return rect;
}

} // namespace

ClassifierView::ClassifierView(QWidget* parent)
    : QWidget(parent), colors_(std::make_unique<ColorMap>(ColorMap::byName(QString()))) {
    build();
}

void ClassifierView::build() {
    auto* col = new QVBoxLayout(this);
    col->setContentsMargins(0, 0, 0, 0);
    auto* top = new QHBoxLayout;
    headline_ = new QLabel(this);
    headline_->setObjectName(QStringLiteral("classifierHeadline"));
    headline_->setTextFormat(Qt::RichText);
    headline_->setToolTip(tr("The class the classifier gives the text, with the probability of each class"));
    pad_ = new QSpinBox(this);
    pad_->setObjectName(QStringLiteral("padSpin"));
    pad_->setRange(0, kMaxPadded);
    pad_->setSpecialValueText(tr("none"));
    pad_->setPrefix(tr("batch width "));
    pad_->setToolTip(tr("Show the text as one row of a training batch padded to this many tokens. The seed's "
                        "module takes the softmax over every position, padding included (grey: a padded "
                        "position's LSTM output is 0, so its score is the attention's bias), then masks the "
                        "padding out and renormalises: the pale bars are the weights before the mask, the "
                        "coloured ones after. The answer is the same at any width."));
    top->addWidget(headline_, 1);
    top->addWidget(new QLabel(tr("Padding:"), this));
    top->addWidget(pad_);
    col->addLayout(top);

    plot_ = new QCustomPlot(this);
    plot_->setObjectName(QStringLiteral("classifierPlot"));
    plot_->setMinimumSize(300, 300);
    auto* group = new QCPMarginGroup(plot_);
    weightsRect_ = addRect(plot_, 0, tr("weight"), group);
    pushRect_ = addRect(plot_, 1, tr("push"), group);
    statesRect_ = addRect(plot_, 2, tr("BiLSTM out"), group);
    plot_->plotLayout()->setRowStretchFactor(0, 3);
    plot_->plotLayout()->setRowStretchFactor(1, 2);
    plot_->plotLayout()->setRowStretchFactor(2, 3);
    statesRect_->axis(QCPAxis::atBottom)->setTickLabels(true);
    statesRect_->axis(QCPAxis::atBottom)->setTicks(true);
    statesRect_->axis(QCPAxis::atLeft)->setRangeReversed(true);
    const auto barsOn = [this](QCPAxisRect* r, const QColor& pen, const QColor& brush) {
        auto* b = new QCPBars(r->axis(QCPAxis::atBottom), r->axis(QCPAxis::atLeft));
        b->setWidth(0.8);
        b->setPen(QPen(pen));
        b->setBrush(brush);
        return b;
    };
    before_ = barsOn(weightsRect_, QColor(0x90, 0x90, 0x90), QColor(0xe8, 0xe8, 0xe8));
    padding_ = barsOn(weightsRect_, kPadding.darker(130), kPadding);
    weights_ = barsOn(weightsRect_, Qt::NoPen, QColor());
    weights_->setWidth(0.6);
    toward_ = barsOn(pushRect_, Qt::NoPen, kToward);
    against_ = barsOn(pushRect_, Qt::NoPen, kAgainst);
    states_ = new QCPColorMap(statesRect_->axis(QCPAxis::atBottom), statesRect_->axis(QCPAxis::atLeft));
    states_->setInterpolate(false);
    states_->setGradient(diverging());
    states_->setDataRange(QCPRange(-1, 1));
    auto* scale = new QCPColorScale(plot_);
    plot_->plotLayout()->addElement(2, 1, scale);
    scale->setBarWidth(8);
    scale->setDataRange(QCPRange(-1, 1));
    scale->setGradient(diverging());
    states_->setColorScale(scale);
    auto* rows = new QCPMarginGroup(plot_);
    statesRect_->setMarginGroup(QCP::msBottom | QCP::msTop | QCP::msLeft | QCP::msRight, rows);
    scale->setMarginGroup(QCP::msBottom | QCP::msTop, rows);
    weightsRect_->setMarginGroup(QCP::msLeft | QCP::msRight, rows);
    pushRect_->setMarginGroup(QCP::msLeft | QCP::msRight, rows);
    delete group; // the rows' group aligns all three and the colour bar
    col->addWidget(plot_, 1);

    plot_->setMouseTracking(true);
    plot_->installEventFilter(this);
    connect(pad_, qOverload<int>(&QSpinBox::valueChanged), this, [this] { rebuild(); });
    setColorMap(*colors_);
}

void ClassifierView::setSnapshot(std::shared_ptr<const core::AttentionSnapshot> snapshot) {
    snap_ = snapshot && !snapshot->pooled.empty() ? std::move(snapshot) : nullptr;
    rebuild();
}

void ClassifierView::setColorMap(const ColorMap& map) {
    *colors_ = map;
    // The weights take the map's colour of a strong weight, so the bars read like the heatmap's cells.
    weights_->setBrush(QColor(map.color(0.55)));
    plot_->replot();
}

void ClassifierView::setPaddedWidth(int width) {
    pad_->setValue(std::clamp(width, 0, kMaxPadded));
}

int ClassifierView::paddedWidth() const {
    return pad_->value();
}

QString ClassifierView::headline() const {
    if (!snap_)
        return {};
    const auto& d = snap_->pooled;
    const int pred = d.predicted();
    QString text =
        QStringLiteral("<b>%1</b> %2")
            .arg(QString::fromStdString(d.classes[pred]).toHtmlEscaped(), percent(d.probabilities[pred]));
    for (std::size_t c = 0; c < d.classes.size(); ++c)
        if (static_cast<int>(c) != pred)
            text +=
                QStringLiteral(" &nbsp;·&nbsp; %1 %2")
                    .arg(QString::fromStdString(d.classes[c]).toHtmlEscaped(), percent(d.probabilities[c]));
    return text;
}

void ClassifierView::rebuild() {
    for (auto* b : {before_, padding_, weights_, toward_, against_})
        b->data()->clear();
    states_->data()->clear();
    if (!snap_) {
        headline_->setText(tr("(no classifier answer to show)"));
        plot_->replot();
        return;
    }
    const auto& d = snap_->pooled;
    const int s = static_cast<int>(d.weights.size());
    const int width = std::max(s, pad_->value());
    const auto padded = d.padded(width);
    const auto push = d.decisiveness();
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    // Every token labelled while they fit, then every n-th.
    const int every = std::max(1, width / 60);
    for (int j = 0; j < width; ++j) {
        if (j < s) {
            weights_->addData(j, d.weights[j]);
            push[j] >= 0 ? toward_->addData(j, push[j]) : against_->addData(j, push[j]);
        } else {
            padding_->addData(j, padded.beforeMask[j]);
        }
        if (width > s)
            before_->addData(j, padded.beforeMask[j]);
        if (j % every == 0)
            ticker->addTick(j, j < s ? tokenDisplayText(snap_->srcTokens[j]) : QStringLiteral("<pad>"));
    }
    const int h2 = d.states.cols;
    states_->data()->setSize(width, std::max(h2, 1));
    states_->data()->setRange(QCPRange(0, width - 1), QCPRange(0, std::max(h2 - 1, 0)));
    for (int j = 0; j < width; ++j)
        for (int c = 0; c < h2; ++c)
            states_->data()->setCell(j, c, j < s ? d.states.at(j, c) : 0.0); // padding's outputs are 0
    const QCPRange xs(-0.6, width - 0.4);
    for (auto* r : {weightsRect_, pushRect_, statesRect_})
        r->axis(QCPAxis::atBottom)->setRange(xs);
    statesRect_->axis(QCPAxis::atBottom)->setTicker(ticker);
    // Level while the labels fit side by side, slanted when they would run into each other.
    statesRect_->axis(QCPAxis::atBottom)->setTickLabelRotation(width / every > 16 ? 60 : 0);
    statesRect_->axis(QCPAxis::atLeft)->setRange(-0.5, h2 - 0.5);
    statesRect_->axis(QCPAxis::atLeft)->setLabel(tr("BiLSTM out (%1 + %1)").arg(h2 / 2));
    double top = 0.0;
    for (int j = 0; j < width; ++j)
        top = std::max<double>({top, padded.beforeMask[j], j < s ? d.weights[j] : 0.0});
    weightsRect_->axis(QCPAxis::atLeft)->setRange(0, std::max(0.05, top * 1.08));
    double reach = 1e-6;
    for (float p : push)
        reach = std::max<double>(reach, std::abs(p));
    pushRect_->axis(QCPAxis::atLeft)->setRange(-reach * 1.1, reach * 1.1);
    const int pred = d.predicted();
    pushRect_->axis(QCPAxis::atLeft)->setLabel(tr("push to %1").arg(QString::fromStdString(d.classes[pred])));
    headline_->setText(headline());
    plot_->replot();
}

QVector<double> ClassifierView::weightBars() const {
    QVector<double> out;
    for (auto it = weights_->data()->constBegin(); it != weights_->data()->constEnd(); ++it)
        out << it->value;
    for (auto it = padding_->data()->constBegin(); it != padding_->data()->constEnd(); ++it)
        out << 0.0; // masked: the padding weighs nothing after the mask
    return out;
}

QVector<double> ClassifierView::beforeMaskBars() const {
    QVector<double> out;
    for (auto it = before_->data()->constBegin(); it != before_->data()->constEnd(); ++it)
        out << it->value;
    return out;
}

int ClassifierView::tokenAt(const QPoint& pos) const {
    if (!snap_)
        return -1;
    const int width = std::max(static_cast<int>(snap_->pooled.weights.size()), pad_->value());
    for (auto* r : {weightsRect_, pushRect_, statesRect_})
        if (r->rect().contains(pos)) {
            const int j = static_cast<int>(std::lround(r->axis(QCPAxis::atBottom)->pixelToCoord(pos.x())));
            return j >= 0 && j < width ? j : -1;
        }
    return -1;
}

QString ClassifierView::tokenTip(int j) const {
    if (!snap_ || j < 0)
        return {};
    const auto& d = snap_->pooled;
    const int s = static_cast<int>(d.weights.size());
    const auto padded = d.padded(std::max(s, pad_->value()));
    if (j >= s)
        return tr("<pad> (position %1)\nscore %2: its LSTM output is 0, so only the attention's bias\n"
                  "weight %3 before the mask, 0 after")
            .arg(j)
            .arg(d.padScore, 0, 'f', 4)
            .arg(padded.beforeMask[j], 0, 'f', 4);
    QString tip = tr("%1 (position %2)\nscore before softmax %3\nweight %4")
                      .arg(tokenDisplayText(snap_->srcTokens[j]))
                      .arg(j)
                      .arg(d.scores[j], 0, 'f', 4)
                      .arg(d.weights[j], 0, 'f', 4);
    if (pad_->value() > s)
        tip += tr(" (%1 before the padding was masked)").arg(padded.beforeMask[j], 0, 'f', 4);
    for (std::size_t c = 0; c < d.classes.size(); ++c)
        tip += tr("\nshare of the %1 logit %2")
                   .arg(QString::fromStdString(d.classes[c]))
                   .arg(d.contributions.at(static_cast<int>(c), j), 0, 'f', 4);
    // The state the score read: its size in each direction and its first values.
    const int h2 = d.states.cols, h = h2 / 2;
    double fwd = 0.0, bwd = 0.0;
    for (int c = 0; c < h2; ++c)
        (c < h ? fwd : bwd) += double(d.states.at(j, c)) * d.states.at(j, c);
    tip += tr("\nBiLSTM output: |forward| %1, |backward| %2\n[")
               .arg(std::sqrt(fwd), 0, 'f', 3)
               .arg(std::sqrt(bwd), 0, 'f', 3);
    for (int c = 0; c < std::min(h2, 6); ++c)
        tip += (c ? QStringLiteral(", ") : QString()) + QString::number(d.states.at(j, c), 'f', 3);
    tip += h2 > 6 ? QStringLiteral(", …]") : QStringLiteral("]");
    return tip;
}

bool ClassifierView::eventFilter(QObject* watched, QEvent* event) {
    if (watched == plot_) {
        if (event->type() == QEvent::MouseMove) {
            const auto pos = static_cast<QMouseEvent*>(event)->pos();
            const int j = tokenAt(pos);
            if (j >= 0)
                QToolTip::showText(plot_->mapToGlobal(pos), tokenTip(j), plot_);
            else
                QToolTip::hideText();
        } else if (event->type() == QEvent::MouseButtonPress) {
            const int j = tokenAt(static_cast<QMouseEvent*>(event)->pos());
            if (j >= 0 && snap_ && j < static_cast<int>(snap_->pooled.weights.size()))
                Q_EMIT tokenClicked(j);
        }
    }
    return QWidget::eventFilter(watched, event);
}

} // namespace ui
