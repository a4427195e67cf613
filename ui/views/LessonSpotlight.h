#pragma once
// A frame a lesson draws around what a step points at (a tile of the grid, a cell of the heatmap): a
// transparent child laid over its target, passing every mouse event through, repainted with the target so
// the frame follows a zoom or a resize.

#include <QWidget>

#include <functional>

namespace ui {

class LessonSpotlight : public QWidget {
    Q_OBJECT
public:
    explicit LessonSpotlight(QWidget* target);

    /// Frames what `rect` gives, in the target's coordinates, at each repaint (an empty rect: nothing).
    void show(std::function<QRect()> rect);
    void clear();
    /// The rectangle framed now (empty when nothing is).
    QRect framed() const;

protected:
    void paintEvent(QPaintEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    QWidget* target_;
    std::function<QRect()> rect_;
};

} // namespace ui
