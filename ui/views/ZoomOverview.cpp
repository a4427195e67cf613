#include "ui/views/ZoomOverview.h"

#include <QMouseEvent>
#include <QPainter>

namespace ui {

ZoomOverview::ZoomOverview(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("zoomOverview"));
    setFixedSize(120, 120);
    setCursor(Qt::PointingHandCursor);
    setToolTip(tr("The whole head; the box is the part in view. Click or drag to move there."));
    hide();
}

void ZoomOverview::setImage(QImage image) {
    image_ = std::move(image);
    update();
}

void ZoomOverview::setVisibleCells(const QRectF& cells) {
    visible_ = cells;
    update();
}

QRectF ZoomOverview::imageRect() const {
    if (image_.isNull())
        return {};
    // The thumbnail keeps the map's aspect inside the widget, less a frame.
    const QSizeF s = QSizeF(image_.size()).scaled(QSizeF(size()) - QSizeF(6, 6), Qt::KeepAspectRatio);
    return QRectF(QPointF((width() - s.width()) / 2, (height() - s.height()) / 2), s);
}

void ZoomOverview::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), QColor(255, 255, 255, 220));
    p.setPen(QColor(0x80, 0x80, 0x80));
    p.drawRect(rect().adjusted(0, 0, -1, -1));
    const QRectF r = imageRect();
    if (r.isEmpty())
        return;
    p.setRenderHint(QPainter::SmoothPixmapTransform, false);
    p.drawImage(r, image_);
    const double sx = r.width() / image_.width(), sy = r.height() / image_.height();
    const QRectF box(r.left() + visible_.left() * sx, r.top() + visible_.top() * sy, visible_.width() * sx,
                     visible_.height() * sy);
    p.setPen(QPen(QColor(0xf0, 0x5a, 0x28), 2));
    p.setBrush(Qt::NoBrush);
    p.drawRect(box.intersected(r));
}

void ZoomOverview::mousePressEvent(QMouseEvent* event) {
    const QRectF r = imageRect();
    if (r.isEmpty())
        return;
    const QPointF pos = event->position() - r.topLeft();
    Q_EMIT centreRequested(
        QPointF(pos.x() / r.width() * image_.width(), pos.y() / r.height() * image_.height()));
}

void ZoomOverview::mouseMoveEvent(QMouseEvent* event) {
    if (event->buttons() & Qt::LeftButton)
        mousePressEvent(event);
}

} // namespace ui
