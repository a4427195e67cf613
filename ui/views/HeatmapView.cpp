#include "ui/views/HeatmapView.h"

#include "ui/base/AttentionText.h"
#include "ui/base/HeadNavigation.h"
#include "ui/base/LatestJob.h"
#include "ui/base/PlotHelpers.h"
#include "ui/base/QCustomPlotInclude.h"
#include "ui/base/TokenText.h"
#include "ui/views/HeatmapCellTip.h"
#include "ui/views/HeatmapCells.h"
#include "ui/views/HeatmapZoom.h"

#include <QKeyEvent>
#include <QLabel>
#include <QMouseEvent>
#include <QStackedLayout>
#include <QToolTip>

#include <algorithm>
#include <cmath>
#include <limits>

namespace ui {

namespace {

// Long word pieces are elided on the axes; the tooltip shows them whole.
constexpr int kMaxLabelWidth = 90;

// The map's range for n cells over `tokens` tokens: the centres of its first and last cell when n equal cells
// cover the tokens' coordinates [-0.5, tokens - 0.5] exactly, each spanning tokens / n (one token while they
// fit). QCPColorMap puts half a cell beyond each end of its range, and nothing when n is 1: a single cell's
// range is the whole span, so it stays visible (the first decoding step has one query).
QCPRange cellRange(int n, int tokens) {
    if (n <= 1)
        return QCPRange(-0.5, tokens - 0.5);
    const double half = 0.5 * tokens / n;
    return QCPRange(-0.5 + half, tokens - 0.5 - half);
}

} // namespace

HeatmapView::HeatmapView(QWidget* parent) : QWidget(parent), job_(new LatestJob(this)) {
    connect(job_, &LatestJob::busyChanged, this, &HeatmapView::busyChanged);
    setFocusPolicy(Qt::StrongFocus);
    plot_ = new QCustomPlot(this);
    // Its axes' labels (larger when presenting) would otherwise ask for more room than a projector has
    // beside the grid; what does not fit is thinned, as the labels already are.
    plot_->setMinimumSize(240, 150);
    plot_->setFocusPolicy(Qt::NoFocus);
    plot_->setMouseTracking(true);
    plot_->installEventFilter(this);
    plot_->setToolTip(tr("Attention weights: one row per query token, one column per key token. "
                         "\u2190/\u2192 change head, \u2191/\u2193 change layer."));

    map_ = new QCPColorMap(plot_->xAxis, plot_->yAxis);
    map_->setInterpolate(false);
    map_->setTightBoundary(false);

    scale_ = new QCPColorScale(plot_);
    plot_->plotLayout()->addElement(0, 1, scale_);
    scale_->setType(QCPAxis::atRight);
    scale_->setBarWidth(12);
    scale_->axis()->setLabel(tr("weight"));
    map_->setColorScale(scale_);
    // Keeps the legend exactly as tall as the map.
    auto* margins = new QCPMarginGroup(plot_);
    plot_->axisRect()->setMarginGroup(QCP::msTop | QCP::msBottom, margins);
    scale_->setMarginGroup(QCP::msTop | QCP::msBottom, margins);

    plot_->plotLayout()->insertRow(0);
    QFont titleFont = font();
    titleFont.setBold(true);
    title_ = new QCPTextElement(plot_, QString(), titleFont);
    plot_->plotLayout()->addElement(0, 0, title_);

    for (QCPAxis* axis : {plot_->xAxis, plot_->yAxis}) {
        auto ticker = QSharedPointer<QCPAxisTickerText>::create();
        ticker->setSubTickCount(0);
        axis->setTicker(ticker);
        axis->grid()->setVisible(false);
        axis->setTickLengthIn(0);
        axis->setTickLengthOut(3);
        axis->setSubTicks(false);
    }
    plot_->xAxis->setLabel(tr("key"));
    plot_->yAxis->setLabel(tr("query"));
    // Query 0 on top, like reading order and every attention figure.
    plot_->yAxis->setRangeReversed(true);

    markRect_ = new QCPItemRect(plot_);
    markRect_->setPen(QPen(Qt::white, 2));
    markRect_->setVisible(false);
    currentRect_ = new QCPItemRect(plot_);
    currentRect_->setPen(QPen(QColor(0xf0, 0x5a, 0x28), 2, Qt::DashLine));
    currentRect_->setVisible(false);
    for (QCPItemRect* r : {markRect_, currentRect_}) {
        r->setBrush(Qt::NoBrush);
        r->setSelectable(false);
        // Outlines of edge rows and columns would lose half their pen to the axis rect's clip.
        r->setClipToAxisRect(false);
    }

    connect(plot_, &QCustomPlot::afterLayout, this, &HeatmapView::updateTicks);
    // Wheel zoom about the pointer, drag to pan, an overview while zoomed; labels re-thin as cells grow.
    zoom_ = new HeatmapZoom(plot_, map_, this);
    connect(zoom_, &HeatmapZoom::viewChanged, this, [this] {
        xStep_ = yStep_ = 0;
        updateTicks();
    });

    message_ = new QLabel(this);
    message_->setObjectName(QStringLiteral("emptyMessage"));
    message_->setAlignment(Qt::AlignCenter);
    message_->setWordWrap(true);

    stack_ = new QStackedLayout(this);
    stack_->setContentsMargins(0, 0, 0, 0);
    stack_->addWidget(plot_);
    stack_->addWidget(message_);
    rebuild();
}

void HeatmapView::setShown(const ShownAttention& shown) {
    const auto changes = shown.diff(shown_);
    if (!changes)
        return;
    shown_ = shown;
    using Change = ShownAttention::Change;
    if (changes == Change::HeadsOff)
        return; // the heatmap draws a head's weights whether it is on or off
    if (changes.testAnyFlags(Change::Block | Change::Selection | Change::Scale)) {
        rebuild();
        return;
    }
    // New colours for the same cells.
    drawn_.colorMap = shown_.colorMap;
    map_->setGradient(shown_.colorMap.gradient());
    zoom_->setColors(shown_.colorMap, range_, drawn_.scale == ScaleMode::Log);
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void HeatmapView::setMarkedToken(Qt::Orientation orientation, int index) {
    markOrientation_ = orientation;
    markIndex_ = index;
    updateMarks();
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void HeatmapView::setCurrentQuery(int query) {
    if (query == currentQuery_)
        return;
    currentQuery_ = query;
    updateMarks();
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

bool HeatmapView::busy() const {
    return job_->busy();
}

double HeatmapView::valueAt(int query, int key) const {
    if (query < 0 || query >= queries_ || key < 0 || key >= keys_)
        return std::numeric_limits<double>::quiet_NaN();
    if (weights_ != nullptr)
        return weights_[std::size_t(query) * std::size_t(keys_) + std::size_t(key)];
    return drawnBlock()->at(shownLayer_, shownHead_, query, key);
}

QString HeatmapView::cellToolTip(int query, int key) const {
    if (query < 0 || query >= queries_ || key < 0 || key >= keys_)
        return {};
    return HeatmapCellTip::text(drawn_, query, key, valueAt(query, key));
}

std::pair<double, double> HeatmapView::colorRange() const {
    const QCPRange r = map_->dataRange();
    return {r.lower, r.upper};
}

QString HeatmapView::emptyMessage() const {
    return stack_->currentWidget() == message_ ? message_->text() : QString();
}

void HeatmapView::setNothingYetText(const QString& text) {
    nothingYet_ = text;
    if (block() == nullptr)
        rebuild();
}

void HeatmapView::rebuild() {
    if (block() == nullptr) {
        job_->forget();
        drawn_ = shown_;
        queries_ = keys_ = 0;
        weights_ = nullptr;
        ownWeights_.clear();
        map_->data()->clear();
        message_->setText(AttentionText::emptyText(shown_.snapshot.get(), shown_.kind, nothingYet_));
        stack_->setCurrentWidget(message_);
        return;
    }
    if (HeatmapCells::work(shown_) <= inPlaceWeights_) {
        job_->forget();
        showCells(HeatmapCells::compute(shown_, kMaxMapSide));
        return;
    }
    // A large block (a long text's mean over heads reads every head's weights): on a thread of its own,
    // the newest only; the map shows the last head until this one is ready.
    job_->start([shown = shown_] { return HeatmapCells::compute(shown, kMaxMapSide); },
                [this](HeatmapCells cells, const QString& error) {
                    if (error.isEmpty())
                        showCells(std::move(cells));
                });
}

void HeatmapView::showCells(HeatmapCells c) {
    queries_ = c.queries;
    keys_ = c.keys;
    shownLayer_ = c.layer;
    shownHead_ = c.head;
    drawn_ = std::move(c.shown);
    weights_ = c.inBlock ? drawnBlock()->row(c.layer, c.head, 0) : nullptr;
    ownWeights_ = std::move(c.own);
    if (!ownWeights_.empty())
        weights_ = ownWeights_.data();
    auto* cells = map_->data();
    cells->setSize(c.cols, c.rows);
    cells->setRange(cellRange(c.cols, keys_), cellRange(c.rows, queries_));
    for (int r = 0; r < c.rows; ++r)
        for (int col = 0; col < c.cols; ++col)
            cells->setCell(col, r, c.cells[std::size_t(r) * std::size_t(c.cols) + std::size_t(col)]);
    const bool log = drawn_.scale == ScaleMode::Log;
    range_ = colourRange(drawn_.scale, c.lo, c.hi);
    map_->setGradient(shown_.colorMap.gradient());
    setLogScale(scale_, log);
    map_->setDataRange(QCPRange(range_.first, range_.second));

    zoom_->setShape(keys_, queries_); // a zoom survives a step or another head of the same shape
    zoom_->setColors(shown_.colorMap, range_, log);

    const QString which = c.head == core::kMeanHead ? tr("mean over heads") : tr("head %1").arg(c.head);
    const bool weighted = drawn_.showsValueWeighted();
    title_->setText(tr("%1 \u00b7 layer %2 \u00b7 %3%4")
                        .arg(AttentionText::kindName(drawn_.kind))
                        .arg(c.layer)
                        .arg(which, weighted ? tr(" \u00b7 weight \u00d7 value") : QString()));
    scale_->axis()->setLabel(weighted ? tr("weight \u00d7 \u2016v W_O\u2016, share of the row")
                                      : tr("weight"));

    // Force a fresh thinning decision: the token count may have changed.
    xStep_ = yStep_ = 0;
    updateTicks();
    updateMarks();
    // One query and one key (the decoder before its first step): a square filling the pane says less than
    // a sentence does.
    if (queries_ == 1 && keys_ == 1 && !drawn_.queryTokens().empty()) {
        message_->setText(AttentionText::singleTokenText(tokenDisplayText(drawn_.queryTokens().front())));
        stack_->setCurrentWidget(message_);
        return;
    }
    stack_->setCurrentWidget(plot_);
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void HeatmapView::updateTicks() {
    if (queries_ == 0 || keys_ == 0)
        return;
    const QFontMetrics fm(plot_->xAxis->tickLabelFont());
    const QRect area = plot_->axisRect()->rect();
    // Pixels per token in view: zoomed in, every label may fit.
    const double colPx = area.width() > 0 ? area.width() / std::max(plot_->xAxis->range().size(), 1.0) : 1.0;
    const double rowPx =
        area.height() > 0 ? area.height() / std::max(plot_->yAxis->range().size(), 1.0) : 1.0;

    auto label = [&fm](const core::Token& t) {
        return fm.elidedText(tokenDisplayText(t), Qt::ElideRight, kMaxLabelWidth);
    };
    const auto& kt = drawn_.keyTokens();
    int widest = 0;
    for (const auto& t : kt)
        widest = std::max(widest, fm.horizontalAdvance(label(t)));
    const auto fit = fitLabels(fm, widest, colPx, rowPx, xRotated_);
    const int xStep = fit.xStep, yStep = fit.yStep;
    const bool rotated = fit.rotated;
    if (xStep == xStep_ && yStep == yStep_ && rotated == xRotated_)
        return;
    xStep_ = xStep;
    yStep_ = yStep;
    xRotated_ = rotated;

    auto xt = plot_->xAxis->ticker().dynamicCast<QCPAxisTickerText>();
    auto yt = plot_->yAxis->ticker().dynamicCast<QCPAxisTickerText>();
    xt->clear();
    yt->clear();
    for (int k = 0; k < keys_ && k < int(kt.size()); k += xStep)
        xt->addTick(k, label(kt[std::size_t(k)]));
    const auto& qt = drawn_.queryTokens();
    for (int q = 0; q < queries_ && q < int(qt.size()); q += yStep)
        yt->addTick(q, label(qt[std::size_t(q)]));
    plot_->xAxis->setTickLabelRotation(rotated ? -90 : 0);
    // Called from inside a replot, the new ticks only show in the next one; the margins they need may
    // change the axis rect, and the next layout settles on the same steps.
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void HeatmapView::zoomBy(double factor) {
    zoom_->zoomBy(factor);
}

void HeatmapView::resetZoom() {
    zoom_->reset();
}

bool HeatmapView::isZoomed() const {
    return zoom_->zoomed();
}

QRectF HeatmapView::visibleCells() const {
    return zoom_->visibleCells();
}

void HeatmapView::setVisibleCells(const QRectF& cells) {
    zoom_->setVisibleCells(cells);
}

ZoomOverview* HeatmapView::overview() const {
    return zoom_->overview();
}

void HeatmapView::updateMarks() {
    const bool rowMark = markOrientation_ == Qt::Horizontal;
    const int markLimit = rowMark ? queries_ : keys_;
    if (markIndex_ >= 0 && markIndex_ < markLimit) {
        if (rowMark) {
            markRect_->topLeft->setCoords(-0.5, markIndex_ - 0.5);
            markRect_->bottomRight->setCoords(keys_ - 0.5, markIndex_ + 0.5);
        } else {
            markRect_->topLeft->setCoords(markIndex_ - 0.5, -0.5);
            markRect_->bottomRight->setCoords(markIndex_ + 0.5, queries_ - 0.5);
        }
        markRect_->setVisible(true);
    } else {
        markRect_->setVisible(false);
    }
    if (currentQuery_ >= 0 && currentQuery_ < queries_) {
        currentRect_->topLeft->setCoords(-0.5, currentQuery_ - 0.5);
        currentRect_->bottomRight->setCoords(keys_ - 0.5, currentQuery_ + 0.5);
        currentRect_->setVisible(true);
    } else {
        currentRect_->setVisible(false);
    }
}

std::pair<int, int> HeatmapView::cellAt(const QPoint& pos) const {
    if (queries_ == 0 || !plot_->axisRect()->rect().contains(pos))
        return {-1, -1};
    const int k = int(std::lround(plot_->xAxis->pixelToCoord(pos.x())));
    const int q = int(std::lround(plot_->yAxis->pixelToCoord(pos.y())));
    if (q < 0 || q >= queries_ || k < 0 || k >= keys_)
        return {-1, -1};
    return {q, k};
}

bool HeatmapView::showCellToolTip(const QPoint& pos, const QPoint& globalPos) {
    const auto [q, k] = cellAt(pos);
    if (q < 0)
        return false;
    const QPoint a(int(plot_->xAxis->coordToPixel(k - 0.5)), int(plot_->yAxis->coordToPixel(q - 0.5)));
    const QPoint b(int(plot_->xAxis->coordToPixel(k + 0.5)), int(plot_->yAxis->coordToPixel(q + 0.5)));
    QToolTip::showText(globalPos, cellToolTip(q, k), plot_, QRect(a, b).normalized());
    return true;
}

bool HeatmapView::eventFilter(QObject* watched, QEvent* event) {
    if (watched == plot_) {
        switch (event->type()) {
        case QEvent::MouseMove: {
            auto* me = static_cast<QMouseEvent*>(event);
            if (!showCellToolTip(me->position().toPoint(), me->globalPosition().toPoint()))
                QToolTip::hideText();
            break; // the plot still sees the move
        }
        case QEvent::ToolTip: {
            auto* he = static_cast<QHelpEvent*>(event);
            if (showCellToolTip(he->pos(), he->globalPos()))
                return true;
            break; // away from the cells the plot's general tooltip applies
        }
        case QEvent::Leave:
            QToolTip::hideText();
            break;
        default:
            break;
        }
    }
    return QWidget::eventFilter(watched, event);
}

void HeatmapView::keyPressEvent(QKeyEvent* event) {
    const auto step = headNavigationStep(event->key());
    if (!step) {
        QWidget::keyPressEvent(event);
        return;
    }
    Q_EMIT navigate(step->first, step->second);
    event->accept();
}

} // namespace ui
