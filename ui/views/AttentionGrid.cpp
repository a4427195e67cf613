#include "ui/views/AttentionGrid.h"

#include "core/analysis/AttentionStats.h"
#include "ui/base/AttentionText.h"
#include "ui/base/HeadNavigation.h"
#include "ui/views/GridTileTip.h"

#include <QElapsedTimer>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace ui {

namespace {

constexpr int kMargin = 6;
// Room between tiles for the selection outline (2 px) and the query marker (3 px) beside each tile.
constexpr int kGap = 7;
// Where tiles would be smaller than this, the gaps between them shrink to kNarrowGap to leave them the room.
constexpr int kNarrowBelow = 12;
constexpr int kNarrowGap = 2;
// The grid asks for tiles of kMinTile where heads and layers allow, but never for more than this: a model of
// many heads (GPT-2's 12 × 12, Llama's 32 × 32) must not push the window past a projector's 1024 × 768. Its
// tiles shrink instead (a tooltip and the detail view still show each head).
constexpr int kMostMinimumWidth = 300;
constexpr int kMostMinimumHeight = 220;
// The mean column stands apart from the heads it summarises.
constexpr int kMeanGap = 10;
// Below this a tile is a smudge; the widget asks for at least this much.
constexpr int kMinTile = 24;
constexpr int kHintTile = 56;
// How long the size must stay put before the tiles are pooled again for it (see resizeEvent).
constexpr int kResizeSettleMs = 150;
// Visible against every offered colour map and against light and dark window backgrounds.
const QColor kQueryMarker(0xf0, 0x5a, 0x28);

} // namespace

AttentionGrid::AttentionGrid(QWidget* parent) : QWidget(parent) {
    setFocusPolicy(Qt::StrongFocus);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setToolTip(tr("Every head of every layer. Click a tile to show it in detail; "
                  "\u2190/\u2192 change head, \u2191/\u2193 change layer."));
    resizeSettle_.setSingleShot(true);
    resizeSettle_.setInterval(kResizeSettleMs);
    connect(&resizeSettle_, &QTimer::timeout, this, qOverload<>(&QWidget::update));
    // Zero: the next slice runs as soon as the events queued meanwhile (a click, a repaint) have run.
    poolTimer_.setSingleShot(true);
    poolTimer_.setInterval(0);
    connect(&poolTimer_, &QTimer::timeout, this, &AttentionGrid::poolSlice);
    blockChanged();
}

void AttentionGrid::setShown(const ShownAttention& shown) {
    using Change = ShownAttention::Change;
    const auto changes = shown.diff(shown_);
    if (!changes)
        return;
    const QRect before = tileRect(shown_.layer, shown_.head);
    shown_ = shown;
    if (changes.testFlag(Change::Colours))
        tiles_.setColorMap(shown_.colorMap);
    if (changes.testFlag(Change::Scale))
        tiles_.setScaleMode(shown_.scale);
    if (changes.testFlag(Change::Block)) {
        blockChanged(); // repaints everything
        return;
    }
    if (changes.testAnyFlags(Change::Scale | Change::Colours | Change::HeadsOff)) {
        update();
        return;
    }
    // Only the outline moved.
    update(before.adjusted(-gap_, -gap_, gap_, gap_));
    update(tileRect(shown_.layer, shown_.head).adjusted(-gap_, -gap_, gap_, gap_));
}

void AttentionGrid::setHighlightedQuery(int query) {
    if (query == highlightQuery_)
        return;
    highlightQuery_ = query;
    update();
}

void AttentionGrid::setMarkedToken(Qt::Orientation orientation, int index) {
    if (orientation == markOrientation_ && index == markIndex_)
        return;
    markOrientation_ = orientation;
    markIndex_ = index;
    update();
}

int AttentionGrid::layers() const {
    const auto* b = block();
    return b ? b->layers : 0;
}

int AttentionGrid::heads() const {
    const auto* b = block();
    return b ? b->heads : 0;
}

int AttentionGrid::column(int head) const {
    return head == core::kMeanHead ? heads() : head;
}

QSize AttentionGrid::tilePixels() const {
    // Rounded up: at a fractional scale a tile straddles part of a device pixel, and pooling a little finer
    // than the screen loses nothing.
    const qreal dpr = devicePixelRatioF();
    return {static_cast<int>(std::ceil(tileSize_.width() * dpr)),
            static_cast<int>(std::ceil(tileSize_.height() * dpr))};
}

QRect AttentionGrid::tileRect(int layer, int head) const {
    if (layer < 0 || layer >= layers() || head < core::kMeanHead || head >= heads())
        return {};
    const int col = column(head);
    const int x = origin_.x() + col * (tileSize_.width() + gap_) + (head == core::kMeanHead ? kMeanGap : 0);
    const int y = origin_.y() + layer * (tileSize_.height() + gap_);
    return {QPoint(x, y), tileSize_};
}

std::pair<int, int> AttentionGrid::tileAt(const QPoint& pos) const {
    for (int l = 0; l < layers(); ++l)
        for (int h = core::kMeanHead; h < heads(); ++h)
            if (tileRect(l, h).contains(pos))
                return {l, h};
    return {-1, 0};
}

QString AttentionGrid::tileToolTip(int layer, int head) const {
    return GridTileTip::text(shown_, layer, head, headScores_, tilePixels());
}

QSize AttentionGrid::sizeHint() const {
    const int l = std::max(layers(), 2);
    const int cols = std::max(heads(), 4) + 1;
    return {2 * kMargin + rowLabelWidth_ + cols * (kHintTile + kGap) + kMeanGap,
            2 * kMargin + colLabelHeight_ + l * (kHintTile + kGap)};
}

QSize AttentionGrid::minimumSizeHint() const {
    if (layers() == 0)
        return {fontMetrics().horizontalAdvance(message_) / 2, fontMetrics().height() * 3};
    const int cols = heads() + 1;
    return {std::min(2 * kMargin + rowLabelWidth_ + cols * (kMinTile + kGap) + kMeanGap, kMostMinimumWidth),
            std::min(2 * kMargin + colLabelHeight_ + layers() * (kMinTile + kGap), kMostMinimumHeight)};
}

void AttentionGrid::setNothingYetText(const QString& text) {
    nothingYet_ = text;
    blockChanged();
}

void AttentionGrid::blockChanged() {
    const auto* b = block();
    message_ = b ? QString() : AttentionText::emptyText(shown_.snapshot.get(), shown_.kind, nothingYet_);
    // The tiles are pooled and coloured when first painted, so a snapshot that is replaced before it is
    // shown costs nothing here.
    tiles_.setBlock(b, shown_.causal());
    updateGeometryCache();
    updateGeometry();
    update();
}

void AttentionGrid::updateGeometryCache() {
    const QFontMetrics fm = fontMetrics();
    const int l = layers();
    const int cols = heads() + 1;
    rowLabelWidth_ = fm.horizontalAdvance(QStringLiteral("L%1").arg(std::max(l - 1, 0))) + 6;
    colLabelHeight_ = fm.height() + 4;
    if (l == 0) {
        tileSize_ = {};
        origin_ = {};
        return;
    }
    int tw = 0, th = 0;
    for (const int gap : {kGap, kNarrowGap}) {
        gap_ = gap;
        const int availW = width() - 2 * kMargin - rowLabelWidth_ - kMeanGap - cols * gap_;
        const int availH = height() - 2 * kMargin - colLabelHeight_ - l * gap_;
        tw = std::max(availW / cols, 2);
        th = std::max(availH / l, 2);
        if (std::min(tw, th) >= kNarrowBelow)
            break;
    }
    if (std::min(tw, th) >= kMinTile) {
        tw = th = std::min(tw, th);
    } else {
        // Too little room for squares of a readable size: let the short side stay short but keep the long
        // side from stretching the tiles into strips.
        tw = std::min(tw, std::max(th, kMinTile));
        th = std::min(th, std::max(tw, kMinTile));
    }
    tileSize_ = {tw, th};
    const int gridW = rowLabelWidth_ + cols * (tw + gap_) + kMeanGap;
    const int gridH = colLabelHeight_ + l * (th + gap_);
    const int left = std::max(kMargin, (width() - gridW) / 2);
    const int top = std::max(kMargin, (height() - gridH) / 2);
    origin_ = {left + rowLabelWidth_ + gap_ / 2, top + colLabelHeight_ + gap_ / 2};
}

void AttentionGrid::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    const QSize before = tileSize_;
    updateGeometryCache();
    // Pooling a long input again is a pass over all its weights (about 100 ms for GPT-2's shape at 1,024
    // tokens); doing it at every step of a splitter drag would make the drag stutter. Until the tile size
    // has settled, the tiles pooled for the previous size are drawn scaled.
    if (tileSize_ != before)
        resizeSettle_.start();
}

void AttentionGrid::paintEvent(QPaintEvent* event) {
    QPainter p(this);
    p.fillRect(event->rect(), palette().window());
    const auto* b = block();
    if (b == nullptr) {
        p.setPen(palette().color(QPalette::WindowText));
        p.drawText(rect().adjusted(kMargin, kMargin, -kMargin, -kMargin), Qt::AlignCenter | Qt::TextWordWrap,
                   message_);
        return;
    }
    const QFontMetrics fm = fontMetrics();
    const int cols = b->heads + 1;

    // Labels are thinned when tiles get shorter than a line of text, so they never run into each other.
    p.setPen(palette().color(QPalette::WindowText));
    const int colStep =
        std::max(1, static_cast<int>(std::ceil((fm.horizontalAdvance(QStringLiteral("H00")) + 4.0) /
                                               (tileSize_.width() + gap_))));
    for (int c = 0; c < cols; ++c) {
        const int head = c == b->heads ? core::kMeanHead : c;
        if (head != core::kMeanHead && c % colStep != 0)
            continue;
        const QRect t = tileRect(0, head);
        const QRect r(t.left() - gap_ / 2, t.top() - gap_ / 2 - colLabelHeight_, t.width() + gap_,
                      colLabelHeight_);
        p.drawText(r, Qt::AlignHCenter | Qt::AlignBottom,
                   head == core::kMeanHead ? tr("mean") : QStringLiteral("H%1").arg(head));
    }
    // Grouped-query attention: a line over each group of query heads that read the same keys and values.
    const int kv = shown_.snapshot ? shown_.snapshot->kvHeads : 0;
    if (kv > 0 && shown_.kind == core::AttentionKind::Decoder && b->heads % kv == 0)
        for (int g = 0, r = b->heads / kv; g < kv; ++g) {
            const QRect first = tileRect(0, g * r), last = tileRect(0, g * r + r - 1);
            p.drawLine(first.left() + 1, first.top() - gap_ / 2 - 1, last.right() - 1,
                       first.top() - gap_ / 2 - 1);
        }
    const int rowStep =
        std::max(1, static_cast<int>(std::ceil(double(fm.height()) / (tileSize_.height() + gap_))));
    for (int l = 0; l < b->layers; l += rowStep) {
        const QRect t = tileRect(l, 0);
        const QRect r(t.left() - gap_ / 2 - rowLabelWidth_, t.top(), rowLabelWidth_ - 4, t.height());
        p.drawText(r, Qt::AlignRight | Qt::AlignVCenter, QStringLiteral("L%1").arg(l));
    }

    // Nearest-neighbour scaling keeps one weight one crisp cell, and is the cheap path of the raster engine.
    p.setRenderHint(QPainter::SmoothPixmapTransform, false);
    // Asked for at every paint because the device pixel ratio changes with the screen the window is on.
    if (!resizeSettle_.isActive() || !tiles_.hasPixelSize())
        tiles_.setPixelSize(tilePixels());
    const QRect dirty = event->rect();
    const bool marker = highlightQuery_ >= 0 && highlightQuery_ < b->queries;
    const double rowH = double(tileSize_.height()) / b->queries;
    // A small block is pooled here, within a few milliseconds. A large one is pooled in slices on timer
    // events (poolSlice), each followed by a repaint: the layers not pooled yet show as blank tiles, and
    // neither a paint nor a slice keeps the window from answering for long.
    const bool inPaint = double(b->layers) * b->heads * b->queries * b->keys <= poolInPaintCells_;
    bool deferred = false;
    for (int l = 0; l < b->layers; ++l) {
        const bool later = !inPaint && !tiles_.isPooled(l);
        deferred = deferred || later;
        for (int c = 0; c < cols; ++c) {
            const int head = c == b->heads ? core::kMeanHead : c;
            const QRect t = tileRect(l, head);
            if (!dirty.intersects(t.adjusted(-gap_, -gap_, gap_, gap_)))
                continue;
            if (later) {
                p.fillRect(t, palette().color(QPalette::Midlight));
                continue;
            }
            p.drawImage(t, tiles_.image(l, c));
            const bool rowMark = markOrientation_ == Qt::Horizontal;
            if (markIndex_ >= 0 && markIndex_ < (rowMark ? b->queries : b->keys)) {
                // The heatmap's white outline of the marked row or column, in every tile.
                const double colW = double(tileSize_.width()) / b->keys;
                const QRectF m =
                    rowMark ? QRectF(t.left(), t.top() + markIndex_ * rowH, t.width(), std::max(rowH, 2.0))
                            : QRectF(t.left() + markIndex_ * colW, t.top(), std::max(colW, 2.0), t.height());
                p.setPen(QPen(Qt::white, 1.5));
                p.setBrush(Qt::NoBrush);
                p.drawRect(m);
            }
            if (marker) {
                const int h = std::max(4, static_cast<int>(std::lround(rowH)));
                const int y = t.top() + static_cast<int>(std::lround((highlightQuery_ + 0.5) * rowH)) - h / 2;
                p.fillRect(QRect(t.left() - 5, y, 3, h), kQueryMarker);
            }
        }
    }

    if (deferred && !poolTimer_.isActive())
        poolTimer_.start();

    // A head switched off: its weights are still what it computed, but nothing it reads reaches the output.
    p.setRenderHint(QPainter::Antialiasing, true);
    for (int l = 0; l < b->layers; ++l)
        for (int h = 0; h < b->heads; ++h) {
            if (!shown_.headsOff.off({shown_.kind, l, h}))
                continue;
            const QRectF t = tileRect(l, h);
            p.fillRect(t, QColor(0, 0, 0, 110));
            p.setPen(QPen(QColor(230, 40, 40), 2.5));
            p.drawLine(t.topLeft(), t.bottomRight());
            p.drawLine(t.topRight(), t.bottomLeft());
        }
    p.setRenderHint(QPainter::Antialiasing, false);

    const QRect sel = tileRect(shown_.layer, shown_.head);
    if (!sel.isEmpty()) {
        const QColor c = palette().color(hasFocus() ? QPalette::Highlight : QPalette::WindowText);
        p.setPen(QPen(c, 2, Qt::SolidLine, Qt::SquareCap, Qt::MiterJoin));
        p.setBrush(Qt::NoBrush);
        p.drawRect(QRectF(sel).adjusted(-1.5, -1.5, 1.5, 1.5));
    }
}

void AttentionGrid::poolSlice() {
    const auto* b = block();
    if (b == nullptr)
        return;
    QElapsedTimer spent;
    spent.start();
    for (int l = 0; l < b->layers; ++l) {
        if (tiles_.isPooled(l))
            continue;
        if (poolBudgetMs_ <= 0) {
            tiles_.image(l, 0); // one whole layer
            break;
        }
        if (!tiles_.poolFor(l, spent, poolBudgetMs_))
            break; // picked up there next time
    }
    update(); // shows what is pooled, and asks for the next slice while layers remain
}

void AttentionGrid::poolAll() {
    const auto* b = block();
    if (b == nullptr)
        return;
    tiles_.setPixelSize(tilePixels());
    for (int l = 0; l < b->layers; ++l)
        tiles_.image(l, 0);
}

void AttentionGrid::mousePressEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton) {
        QWidget::mousePressEvent(event);
        return;
    }
    const auto [layer, head] = tileAt(event->position().toPoint());
    if (layer < 0) {
        QWidget::mousePressEvent(event);
        return;
    }
    if (event->modifiers() & Qt::ControlModifier) {
        if (head != core::kMeanHead)
            Q_EMIT tileToggled(layer, head);
    } else {
        Q_EMIT tileClicked(layer, head);
    }
    event->accept();
}

void AttentionGrid::keyPressEvent(QKeyEvent* event) {
    const auto step = headNavigationStep(event->key());
    if (!step) {
        QWidget::keyPressEvent(event);
        return;
    }
    Q_EMIT navigate(step->first, step->second);
    event->accept();
}

bool AttentionGrid::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const auto [layer, head] = tileAt(help->pos());
        if (layer >= 0)
            QToolTip::showText(help->globalPos(), tileToolTip(layer, head), this, tileRect(layer, head));
        else
            QToolTip::showText(help->globalPos(), toolTip(), this);
        return true;
    }
    if (event->type() == QEvent::FocusIn || event->type() == QEvent::FocusOut)
        update(tileRect(shown_.layer, shown_.head).adjusted(-gap_, -gap_, gap_, gap_));
    return QWidget::event(event);
}

} // namespace ui
