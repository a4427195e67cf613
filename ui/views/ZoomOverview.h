#pragma once
// A thumbnail of the whole heatmap in a corner of the zoomed plot, with a box where the view is: shown only
// while zoomed in. Clicking it centres the view there.

#include <QImage>
#include <QRectF>
#include <QWidget>

namespace ui {

class ZoomOverview : public QWidget {
    Q_OBJECT
public:
    explicit ZoomOverview(QWidget* parent = nullptr);

    /// The whole map, one pixel per cell (cols × rows).
    void setImage(QImage image);
    /// The part in view, in cells: x over keys, y over queries (query 0 on top).
    void setVisibleCells(const QRectF& cells);
    QRectF visibleCells() const { return visible_; }

Q_SIGNALS:
    /// The user clicked or dragged in the thumbnail: centre the view on this cell position.
    void centreRequested(QPointF cell);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;

private:
    QRectF imageRect() const;
    QImage image_;
    QRectF visible_;
};

} // namespace ui
