#include "ui/views/LinesView.h"

#include "ui/base/AttentionText.h"
#include "ui/base/ColorMap.h"
#include "ui/base/TokenText.h"

#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>

namespace ui {

LinesView::LinesView(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setMinimumSize(200, 160);
    setToolTip(
        tr("Each line joins a key (left) to a query (right); the darker, the larger the weight. Hover "
           "a token to keep only its lines. With the mean selected every head of the layer is drawn in "
           "its own colour."));
}

void LinesView::setShown(const ShownAttention& shown) {
    shown_ = shown;
    update();
}

void LinesView::setMarkedToken(Qt::Orientation orientation, int index) {
    markSide_ = index < 0 ? -1 : orientation == Qt::Horizontal ? 1 : 0;
    markIndex_ = index;
    update();
}

void LinesView::isolate(bool rightSide, int index) {
    hoverSide_ = index < 0 ? -1 : rightSide ? 1 : 0;
    hoverIndex_ = index;
    update();
}

std::vector<int> LinesView::heads() const {
    const auto* b = shown_.block();
    if (b == nullptr)
        return {};
    if (shown_.head != core::kMeanHead)
        return {std::clamp(shown_.head, 0, b->heads - 1)};
    std::vector<int> all(static_cast<std::size_t>(b->heads));
    for (int h = 0; h < b->heads; ++h)
        all[std::size_t(h)] = h;
    return all;
}

int LinesView::headCount() const {
    return static_cast<int>(heads().size());
}

bool LinesView::kept(int query, int key) const {
    // A hovered token wins over a marked one; either keeps only its own lines.
    const int side = hoverSide_ >= 0 ? hoverSide_ : markSide_;
    const int index = hoverSide_ >= 0 ? hoverIndex_ : markIndex_;
    if (side < 0)
        return true;
    return side == 1 ? query == index : key == index;
}

LinesView::Geometry LinesView::geometry() const {
    Geometry g;
    const auto* b = shown_.block();
    const int n = b ? std::max(b->queries, b->keys) : 1;
    const QFontMetrics fm(font());
    g.top = fm.height() * 1.5;
    g.step = std::max(1.0, (height() - g.top - fm.height() * 1.8) / std::max(n, 1)); // room for the legend
    const int labelW = std::min(width() / 4, 160);
    g.leftX = 4;
    g.lineLeft = 4 + labelW + 6;
    g.rightX = width() - 4 - labelW;
    g.lineRight = g.rightX - 6;
    return g;
}

QPoint LinesView::tokenCenter(bool rightSide, int index) const {
    const auto g = geometry();
    const int x = rightSide ? static_cast<int>(g.rightX + 20) : static_cast<int>(g.lineLeft - 20);
    return {x, static_cast<int>(g.top + (index + 0.5) * g.step)};
}

int LinesView::lineCount() const {
    const auto* b = shown_.block();
    if (b == nullptr || std::max(b->queries, b->keys) > kMaxTokens)
        return 0;
    int lines = 0;
    for (const int h : heads())
        for (int q = 0; q < b->queries; ++q)
            for (int k = 0; k < b->keys; ++k)
                lines += kept(q, k) && b->at(shown_.layer, h, q, k) >= kMinWeight ? 1 : 0;
    return lines;
}

void LinesView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Base));
    const auto* b = shown_.block();
    if (b == nullptr) {
        p.drawText(rect(), Qt::AlignCenter, AttentionText::emptyText(shown_.snapshot.get(), shown_.kind));
        return;
    }
    if (std::max(b->queries, b->keys) > kMaxTokens) {
        p.drawText(
            rect().adjusted(20, 0, -20, 0), Qt::AlignCenter | Qt::TextWordWrap,
            tr("%1 tokens are too many for lines to be told apart (at most %2): the heatmap shows them.")
                .arg(std::max(b->queries, b->keys))
                .arg(kMaxTokens));
        return;
    }
    p.setRenderHint(QPainter::Antialiasing);
    const auto g = geometry();
    const int layer = std::clamp(shown_.layer, 0, b->layers - 1);
    const auto hs = heads();
    const QFontMetrics fm(font());
    p.setPen(palette().color(QPalette::PlaceholderText));
    const QString which = shown_.head == core::kMeanHead
                              ? tr("every head, layer %1").arg(layer)
                              : tr("layer %1 · head %2").arg(layer).arg(hs.front());
    p.drawText(QRectF(0, 0, width(), g.top), Qt::AlignCenter,
               tr("%1 · %2 — keys left, queries right").arg(AttentionText::kindName(shown_.kind), which));
    // Lines first, labels over them.
    for (const int h : hs) {
        const QColor base = hs.size() == 1 ? palette().color(QPalette::Highlight) : ColorMap::categorical(h);
        // Heads that agree would draw one line over another: each is shifted a little, so all show.
        const double shift = hs.size() == 1 ? 0.0 : (h - (static_cast<double>(hs.size()) - 1) / 2) * 1.5;
        for (int q = 0; q < b->queries; ++q)
            for (int k = 0; k < b->keys; ++k) {
                const float w = b->at(layer, h, q, k);
                if (w < kMinWeight || !kept(q, k))
                    continue;
                QColor c = base;
                c.setAlphaF(std::clamp(double(w), 0.0, 1.0));
                p.setPen(QPen(c, 1.0 + 2.0 * w));
                p.drawLine(QPointF(g.lineLeft, g.top + (k + 0.5) * g.step + shift),
                           QPointF(g.lineRight, g.top + (q + 0.5) * g.step + shift));
            }
    }
    if (hs.size() > 1) { // which colour is which head, under the columns
        double x = g.lineLeft;
        const double y = height() - fm.height() * 0.5 - 2;
        for (const int h : hs) {
            p.setPen(QPen(ColorMap::categorical(h), 3));
            p.drawLine(QPointF(x, y - fm.height() / 3.0), QPointF(x + 14, y - fm.height() / 3.0));
            p.setPen(palette().color(QPalette::Text));
            p.drawText(QPointF(x + 18, y), QStringLiteral("H%1").arg(h));
            x += 26 + fm.horizontalAdvance(QStringLiteral("H%1").arg(h));
        }
    }
    const auto& keys = shown_.keyTokens();
    const auto& queries = shown_.queryTokens();
    const int labelW = static_cast<int>(g.lineLeft - g.leftX - 6);
    const bool fits = g.step >= fm.height() * 0.8; // otherwise every other label would overlap
    const int every = fits ? 1 : static_cast<int>(std::ceil(fm.height() * 0.8 / g.step));
    const auto label = [&](bool right, int i, const core::Token& t) {
        const bool active = (hoverSide_ == (right ? 1 : 0) && hoverIndex_ == i) ||
                            (hoverSide_ < 0 && markSide_ == (right ? 1 : 0) && markIndex_ == i);
        if (!active && i % every != 0)
            return;
        QFont f = font();
        f.setBold(active);
        p.setFont(f);
        p.setPen(t.special ? palette().color(QPalette::PlaceholderText) : palette().color(QPalette::Text));
        const QRectF r(right ? g.rightX : g.leftX, g.top + i * g.step + g.step / 2 - fm.height() / 2.0,
                       labelW, fm.height());
        p.drawText(r, (right ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignVCenter,
                   fm.elidedText(tokenDisplayText(t), Qt::ElideRight, labelW));
    };
    for (int k = 0; k < static_cast<int>(keys.size()) && k < b->keys; ++k)
        label(false, k, keys[std::size_t(k)]);
    for (int q = 0; q < static_cast<int>(queries.size()) && q < b->queries; ++q)
        label(true, q, queries[std::size_t(q)]);
}

void LinesView::mouseMoveEvent(QMouseEvent* event) {
    const auto g = geometry();
    const auto* b = shown_.block();
    if (b == nullptr)
        return;
    const QPointF pos = event->position();
    const int i = static_cast<int>(std::floor((pos.y() - g.top) / g.step));
    int side = -1;
    if (pos.x() < g.lineLeft && i >= 0 && i < b->keys)
        side = 0;
    else if (pos.x() > g.lineRight && i >= 0 && i < b->queries)
        side = 1;
    if (side != hoverSide_ || (side >= 0 && i != hoverIndex_))
        isolate(side == 1, side < 0 ? -1 : i);
}

void LinesView::leaveEvent(QEvent*) {
    isolate(false, -1);
}

} // namespace ui
