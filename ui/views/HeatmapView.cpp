#include "ui/views/HeatmapView.h"

#include "core/analysis/AttentionStats.h"
#include "core/analysis/MaxPool.h"
#include "ui/base/AttentionText.h"
#include "ui/base/HeadNavigation.h"
#include "ui/base/QCustomPlotInclude.h"
#include "ui/base/TokenText.h"
#include "ui/views/AttentionTiles.h"
#include "ui/views/HeatmapCellTip.h"
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

HeatmapView::HeatmapView(QWidget* parent) : QWidget(parent) {
    setFocusPolicy(Qt::StrongFocus);
    plot_ = new QCustomPlot(this);
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
    if (changes.testAnyFlags(Change::Block | Change::Selection | Change::Scale)) {
        rebuild();
        return;
    }
    // New colours for the same cells.
    map_->setGradient(shown_.colorMap.gradient());
    zoom_->setColors(shown_.colorMap, range_, shown_.scale == ScaleMode::Log);
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void HeatmapView::setLogarithmic(bool log) {
    const auto type = log ? QCPAxis::stLogarithmic : QCPAxis::stLinear;
    if (scale_->dataScaleType() == type)
        return;
    scale_->setDataScaleType(type); // also the map's
    if (log)
        scale_->axis()->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
    else
        scale_->axis()->setTicker(QSharedPointer<QCPAxisTicker>::create());
    // "10⁻³" on a log scale; QCPAxis's own defaults on a linear one.
    scale_->axis()->setNumberFormat(log ? QStringLiteral("eb") : QStringLiteral("gb"));
    scale_->axis()->setNumberPrecision(log ? 0 : 6);
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

double HeatmapView::valueAt(int query, int key) const {
    if (query < 0 || query >= queries_ || key < 0 || key >= keys_)
        return std::numeric_limits<double>::quiet_NaN();
    if (weights_ != nullptr)
        return weights_[std::size_t(query) * std::size_t(keys_) + std::size_t(key)];
    return block()->at(shownLayer_, shownHead_, query, key);
}

QString HeatmapView::cellToolTip(int query, int key) const {
    if (query < 0 || query >= queries_ || key < 0 || key >= keys_)
        return {};
    return HeatmapCellTip::text(shown_, query, key, valueAt(query, key));
}

std::pair<double, double> HeatmapView::colorRange() const {
    const QCPRange r = map_->dataRange();
    return {r.lower, r.upper};
}

QString HeatmapView::emptyMessage() const {
    return stack_->currentWidget() == message_ ? message_->text() : QString();
}

void HeatmapView::rebuild() {
    const auto* b = block();
    if (b == nullptr) {
        queries_ = keys_ = 0;
        weights_ = nullptr;
        ownWeights_.clear();
        map_->data()->clear();
        message_->setText(AttentionText::emptyText(shown_.snapshot.get(), shown_.kind));
        stack_->setCurrentWidget(message_);
        return;
    }
    const int layer = std::clamp(shown_.layer, 0, b->layers - 1);
    const int head = std::clamp(shown_.head, core::kMeanHead, b->heads - 1);
    queries_ = b->queries;
    keys_ = b->keys;

    const int cols = core::pooledLength(keys_, kMaxMapSide), rows = core::pooledLength(queries_, kMaxMapSide);
    const bool pooled = cols < keys_ || rows < queries_;
    const bool perHead = shown_.scale == ScaleMode::PerHead;
    // A log scale has no 0: the cells hold at least its floor (the tooltips read the weights themselves).
    const bool log = shown_.scale == ScaleMode::Log;
    // The weights shown, whole: the block's own for a dense head, else the mean or an expanded compact
    // head, kept for the tooltips. A compact head shown pooled at the fixed scale is read a row at a time
    // instead (16 MB and ~10 ms saved at 2,048 tokens), and its tooltips read the block.
    shownLayer_ = layer;
    shownHead_ = head;
    ownWeights_.clear();
    if (head == core::kMeanHead) {
        ownWeights_ = core::meanOverHeads(*b, layer);
        weights_ = ownWeights_.data();
    } else if (!b->compact())
        weights_ = b->row(layer, head, 0);
    else if (!pooled || perHead)
        weights_ = b->head(layer, head, ownWeights_);
    else
        weights_ = nullptr;
    std::vector<float> scratch;
    const auto rowOf = [&](int q) {
        return weights_ != nullptr ? weights_ + std::size_t(q) * std::size_t(keys_)
                                   : b->row(layer, head, q, scratch);
    };
    // Up to kMaxMapSide cells a side the map holds every weight. A longer side is max-pooled to that many
    // cells with the grid's bins (the strongest weight of each bin stays visible): the map spans the same
    // token coordinates either way, and colouring 4 M cells of a 2,048-token head cost the window ~80 ms a
    // change.
    std::vector<float> values(std::size_t(rows) * std::size_t(cols));
    core::maxPool(queries_, keys_, rowOf, rows, cols, values.data());
    auto* cells = map_->data();
    cells->setSize(cols, rows);
    cells->setRange(cellRange(cols, keys_), cellRange(rows, queries_));
    // Future keys of causal attention are masked, not weak: NaN, which the gradient paints in the colour
    // map's masked colour (the grid's rule, AttentionTiles::maskedFrom).
    const auto masked = shown_.causal() ? AttentionTiles::maskedFrom(rows, cols, queries_, keys_)
                                        : std::vector<int>(std::size_t(rows), cols);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) {
            const float w = values[std::size_t(r) * std::size_t(cols) + std::size_t(c)];
            cells->setCell(c, r,
                           c >= masked[std::size_t(r)] ? std::numeric_limits<double>::quiet_NaN()
                           : log                       ? std::max(w, kLogScaleFloor)
                                                       : w);
        }
    // Only the per-head scale needs the head's range.
    const auto [lo, hi] = perHead ? core::informativeRange(weights_, queries_, keys_, shown_.causal())
                                  : std::pair<float, float>(0.0f, 1.0f);
    if (shown_.scale == ScaleMode::Fixed) {
        range_ = {0.0, 1.0};
    } else if (log) {
        range_ = {kLogScaleFloor, 1.0};
    } else if (hi > lo) {
        range_ = {lo, hi};
    } else {
        // A constant head has no spread to stretch; a tiny range around it keeps the gradient defined.
        range_ = {lo - 1e-6, hi + 1e-6};
    }
    map_->setGradient(shown_.colorMap.gradient());
    setLogarithmic(log);
    map_->setDataRange(QCPRange(range_.first, range_.second));

    zoom_->setShape(keys_, queries_); // a zoom survives a step or another head of the same shape
    zoom_->setColors(shown_.colorMap, range_, shown_.scale == ScaleMode::Log);

    const QString which = head == core::kMeanHead ? tr("mean over heads") : tr("head %1").arg(head);
    const bool weighted = shown_.showsValueWeighted();
    title_->setText(tr("%1 \u00b7 layer %2 \u00b7 %3%4")
                        .arg(AttentionText::kindName(shown_.kind))
                        .arg(layer)
                        .arg(which, weighted ? tr(" \u00b7 weight \u00d7 value") : QString()));
    scale_->axis()->setLabel(weighted ? tr("weight \u00d7 \u2016v W_O\u2016, share of the row")
                                      : tr("weight"));

    // Force a fresh thinning decision: the token count may have changed.
    xStep_ = yStep_ = 0;
    updateTicks();
    updateMarks();
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
    const auto& kt = shown_.keyTokens();
    int widest = 0;
    for (const auto& t : kt)
        widest = std::max(widest, fm.horizontalAdvance(label(t)));
    // Upright labels read best; turn them only when they would collide side by side.
    const bool rotated = widest + 4 > colPx;
    const double xNeed = rotated ? fm.height() + 1 : widest + 4;
    const int xStep = std::max(1, int(std::ceil(xNeed / colPx)));
    const int yStep = std::max(1, int(std::ceil((fm.height() + 1) / rowPx)));
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
    const auto& qt = shown_.queryTokens();
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
