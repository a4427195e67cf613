#include "ui/views/LessonSpotlight.h"

#include <QEvent>
#include <QPainter>

namespace ui {

LessonSpotlight::LessonSpotlight(QWidget* target) : QWidget(target), target_(target) {
    setAttribute(Qt::WA_TransparentForMouseEvents);
    setAttribute(Qt::WA_NoSystemBackground);
    setObjectName(QStringLiteral("lessonSpotlight"));
    // A picture of the window draws its plots over the widgets (as vectors); overlays go on top again.
    setProperty("overlay", true);
    target->installEventFilter(this);
    QWidget::hide();
}

void LessonSpotlight::show(std::function<QRect()> rect) {
    rect_ = std::move(rect);
    setGeometry(target_->rect());
    raise();
    QWidget::show();
    update();
}

void LessonSpotlight::clear() {
    rect_ = nullptr;
    QWidget::hide();
}

QRect LessonSpotlight::framed() const {
    return rect_ && isVisible() ? rect_() : QRect();
}

void LessonSpotlight::paintEvent(QPaintEvent*) {
    const QRect r = framed();
    if (r.isEmpty())
        return;
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    // Orange, thick, a little outside the thing itself: visible on every colour map from across a room.
    p.setPen(QPen(QColor(0xe6, 0x7e, 0x22), 4));
    p.setBrush(Qt::NoBrush);
    p.drawRoundedRect(QRectF(r).adjusted(-3, -3, 3, 3), 4, 4);
}

bool LessonSpotlight::eventFilter(QObject* watched, QEvent* event) {
    // A repaint of the target repaints this child too (a zoom, a replot): only its size needs following.
    if (watched == target_ && rect_ && event->type() == QEvent::Resize)
        setGeometry(target_->rect());
    return QWidget::eventFilter(watched, event);
}

} // namespace ui
