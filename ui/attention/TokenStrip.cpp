#include "ui/attention/TokenStrip.h"

#include "ui/base/AttentionText.h"
#include "ui/base/TokenText.h"

#include <QEvent>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>

namespace ui {

namespace {
constexpr int kPadX = 5;
constexpr int kBarRoom = 5; // the decoding timeline's depth bar, beside a chip's text
constexpr int kPadY = 3;
constexpr int kGap = 4;
constexpr int kTitleWidth = 64;
} // namespace

TokenStrip::TokenStrip(const QString& title, QWidget* parent) : QWidget(parent), title_(title) {
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    setMouseTracking(true);
}

void TokenStrip::setTokens(const std::vector<core::Token>& tokens) {
    tokens_ = tokens;
    texts_.clear();
    for (const auto& t : tokens_)
        texts_.push_back(tokenDisplayText(t));
    measureTexts();
    if (marked_ >= count())
        marked_ = -1;
    chips_ = layoutChips(width());
    updateGeometry();
    update();
}

void TokenStrip::setMarked(int index) {
    marked_ = index;
    update();
}

void TokenStrip::setCurrent(int index) {
    current_ = index;
    update();
}

void TokenStrip::setLimits(int trained, int notRead) {
    trained_ = trained;
    notRead_ = std::max(notRead, 0);
    measureTexts();
    chips_ = layoutChips(width());
    updateGeometry();
    update();
}

void TokenStrip::setForced(std::vector<int> positions) {
    forced_ = std::move(positions);
    update();
}

void TokenStrip::setCommitment(std::vector<int> commitment, std::vector<std::string> points) {
    commitment_ = std::move(commitment);
    points_ = std::move(points);
    chips_ = layoutChips(width());
    updateGeometry();
    update();
}

int TokenStrip::commitment(int index) const {
    return index >= 0 && index < static_cast<int>(commitment_.size()) ? commitment_[std::size_t(index)] : -1;
}

bool TokenStrip::isForced(int index) const {
    return std::binary_search(forced_.begin(), forced_.end(), index);
}

QString TokenStrip::cutText() const {
    return tr("✂ %n more not read", nullptr, notRead_);
}

QRect TokenStrip::cutRect() const {
    return notRead_ > 0 && chips_.size() > tokens_.size() ? chips_.back() : QRect();
}

void TokenStrip::setEmptyText(const QString& text) {
    emptyText_ = text;
    update();
}

QRect TokenStrip::chipRect(int index) const {
    return index >= 0 && index < std::min(count(), static_cast<int>(chips_.size()))
               ? chips_[std::size_t(index)]
               : QRect();
}

QStringList TokenStrip::displayTexts() const {
    return QStringList(texts_.begin(), texts_.end());
}

void TokenStrip::measureTexts() {
    // Measured once per text and font: layouts ask heightForWidth a dozen times per change, and measuring
    // 2,048 texts each time kept the window busy for 25 ms.
    const QFontMetrics fm(font());
    textWidths_.clear();
    for (const auto& text : texts_)
        textWidths_.push_back(fm.horizontalAdvance(text));
    if (notRead_ > 0 && !texts_.empty()) // the ✂ chip after the last token read
        textWidths_.push_back(fm.horizontalAdvance(cutText()));
}

std::vector<QRect> TokenStrip::layoutChips(int width) const {
    std::vector<QRect> out;
    out.reserve(texts_.size());
    const int h = QFontMetrics(font()).height() + 2 * kPadY;
    int x = kTitleWidth, y = kGap;
    for (std::size_t i = 0; i < textWidths_.size(); ++i) {
        // A chip with a depth bar keeps its text clear of it.
        const int bar = commitment(static_cast<int>(i)) >= 0 ? kBarRoom : 0;
        const int w = std::max(textWidths_[i] + 2 * kPadX + bar, h);
        if (x + w > width - kGap && x > kTitleWidth) {
            x = kTitleWidth;
            y += h + kGap;
        }
        out.emplace_back(x, y, w, h);
        x += w + kGap;
    }
    return out;
}

QRect TokenStrip::titleRect() const {
    const int line = QFontMetrics(font()).height() + 2 * kPadY;
    const int pitch = line + kGap;
    // The first line wholly in sight (a scroll area shows part of the strip), the first line when none is.
    const QRect seen = visibleRegion().boundingRect();
    int y = kGap;
    if (!seen.isEmpty() && seen.top() > kGap) {
        y = kGap + ((seen.top() - kGap + pitch - 1) / pitch) * pitch;
        if (y + line > height())
            y = std::max(kGap, y - pitch);
    }
    return {0, y, kTitleWidth - kGap, line};
}

int TokenStrip::heightForWidth(int width) const {
    const auto chips = layoutChips(width);
    const int line = QFontMetrics(font()).height() + 2 * kPadY;
    return (chips.empty() ? line : chips.back().bottom()) + kGap + 1;
}

int TokenStrip::maximumVisibleHeight(int lines) const {
    const int line = QFontMetrics(font()).height() + 2 * kPadY;
    return kGap + lines * (line + kGap) + 1;
}

QSize TokenStrip::sizeHint() const {
    return {400, heightForWidth(std::max(width(), 400))};
}

QSize TokenStrip::minimumSizeHint() const {
    return {kTitleWidth + 40, heightForWidth(std::max(width(), kTitleWidth + 40))};
}

void TokenStrip::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    chips_ = layoutChips(width());
}

void TokenStrip::paintEvent(QPaintEvent* event) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const auto pal = palette();
    const int line = QFontMetrics(font()).height() + 2 * kPadY;
    p.setPen(pal.color(QPalette::PlaceholderText));
    p.drawText(titleRect(), Qt::AlignVCenter | Qt::AlignLeft, title_);
    if (tokens_.empty()) {
        p.drawText(QRect(kTitleWidth, kGap, width() - kTitleWidth, line), Qt::AlignVCenter | Qt::AlignLeft,
                   emptyText_);
        return;
    }
    const QColor accent = pal.color(QPalette::Highlight);
    // Inside a scroll area most of a long text's chips are out of sight; only the exposed ones are drawn.
    const QRect exposed = event->rect().adjusted(-3, -3, 3, 3);
    for (int i = 0; i < count(); ++i) {
        if (!exposed.intersects(chips_[std::size_t(i)]))
            continue;
        const auto& t = tokens_[std::size_t(i)];
        const QRectF r = QRectF(chips_[std::size_t(i)]).adjusted(0.5, 0.5, -0.5, -0.5);
        QColor fill = pal.color(QPalette::AlternateBase);
        QColor border = pal.color(QPalette::Mid);
        QColor text = pal.color(QPalette::Text);
        Qt::PenStyle style = Qt::SolidLine;
        if (t.special) {
            text = pal.color(QPalette::PlaceholderText);
        }
        if (t.unknown) {
            // Unknown pieces stay visible, in a colour that reads as "the model cannot see this".
            fill = QColor(0xfd, 0xe2, 0xe1);
            border = QColor(0xc0, 0x39, 0x2b);
            text = QColor(0x9b, 0x1c, 0x1c);
            style = Qt::DashLine;
        }
        if (i == marked_) {
            fill = accent;
            text = pal.color(QPalette::HighlightedText);
        }
        p.setPen(QPen(border, 1, style));
        p.setBrush(fill);
        p.drawRoundedRect(r, 4, 4);
        if (i == current_) {
            p.setPen(QPen(QColor(0xe6, 0x7e, 0x22), 2));
            p.setBrush(Qt::NoBrush);
            p.drawRoundedRect(r.adjusted(-1, -1, 1, 1), 5, 5);
        }
        if (isForced(i)) { // chosen by the user, not the sampler: a purple tab on the chip's left edge
            p.setPen(Qt::NoPen);
            p.setBrush(QColor(0x7d, 0x3c, 0x98));
            p.drawRoundedRect(QRectF(r.left(), r.top(), 4, r.height()), 2, 2);
        }
        if (const int c = commitment(i); c >= 0 && points_.size() > 1) {
            // The depth at which the token was settled: a bar on the chip's right edge, filled from the
            // bottom to its point's share of the stream.
            const QRectF track(r.right() - 5, r.top() + 3, 3, r.height() - 6);
            const double share = double(c + 1) / double(points_.size());
            p.setPen(Qt::NoPen);
            p.setBrush(QColor(0x16, 0xa0, 0x85, 60));
            p.drawRect(track);
            p.setBrush(QColor(0x0e, 0x76, 0x62));
            p.drawRect(QRectF(track.left(), track.bottom() - track.height() * share, track.width(),
                              track.height() * share));
        }
        if (trained_ >= 0 && i >= trained_) { // past max_len: a position training never saw
            p.setPen(QPen(QColor(0xb7, 0x79, 0x1f), 2));
            p.drawLine(r.bottomLeft() + QPointF(2, -1), r.bottomRight() + QPointF(-2, -1));
        }
        p.setPen(text);
        p.drawText(commitment(i) >= 0 ? r.adjusted(0, 0, -kBarRoom, 0) : r, Qt::AlignCenter,
                   texts_[std::size_t(i)]);
    }
    const QRect cut = cutRect();
    if (!cut.isEmpty() && exposed.intersects(cut)) {
        // Not a token: a dashed note where the text stops being read.
        p.setPen(QPen(QColor(0x9b, 0x1c, 0x1c), 1, Qt::DashLine));
        p.setBrush(Qt::NoBrush);
        p.drawRoundedRect(QRectF(cut).adjusted(0.5, 0.5, -0.5, -0.5), 4, 4);
        p.drawText(cut, Qt::AlignCenter, cutText());
    }
}

int TokenStrip::chipAt(const QPoint& pos) const {
    for (int i = 0; i < std::min(count(), static_cast<int>(chips_.size())); ++i)
        if (chips_[std::size_t(i)].contains(pos))
            return i;
    return -1;
}

void TokenStrip::mousePressEvent(QMouseEvent* event) {
    const int i = chipAt(event->position().toPoint());
    if (i < 0)
        return;
    Q_EMIT tokenClicked(i == marked_ ? -1 : i, event->modifiers());
}

bool TokenStrip::event(QEvent* event) {
    if (event->type() == QEvent::FontChange) {
        measureTexts();
        chips_ = layoutChips(width());
        updateGeometry();
    }
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const int i = chipAt(help->pos());
        if (i < 0) {
            if (cutRect().contains(help->pos()))
                QToolTip::showText(help->globalPos(),
                                   tr("The text goes on for %n more token(s), past what this model reads: "
                                      "they are not analysed. Shorten the text to see its end.",
                                      nullptr, notRead_),
                                   this, cutRect());
            else
                QToolTip::showText(help->globalPos(), toolTip(), this);
            return true;
        }
        const auto& t = tokens_[std::size_t(i)];
        QString tip = tr("position %1 · id %2").arg(i).arg(t.id);
        if (t.unknown)
            tip += tr("\n“%1” is not in the vocabulary: the model sees <unk>")
                       .arg(QString::fromStdString(t.text));
        else if (t.special)
            tip += tr("\nspecial token added by the model");
        if (isForced(i))
            tip += tr("\nforced: you chose this token; the sampler did not");
        if (const int c = commitment(i); c >= 0 && c < static_cast<int>(points_.size()))
            tip += tr("\ndecided at %1 (point %2 of %3): the logit lens's top token from there to the output")
                       .arg(AttentionText::streamPoint(points_[std::size_t(c)]))
                       .arg(c + 1)
                       .arg(points_.size());
        if (trained_ >= 0 && i >= trained_)
            tip += tr("\npast max_len (%1): a position this model never saw in training").arg(trained_);
        tip += tr("\nclick: mark its row in the heatmap (Shift+click: its column)");
        QToolTip::showText(help->globalPos(), tip, this, chipRect(i));
        return true;
    }
    return QWidget::event(event);
}

} // namespace ui
