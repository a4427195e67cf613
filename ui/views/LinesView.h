#pragma once
// The lines view (the head view people know from other tools): key tokens in a column on the left, query
// tokens on the right (for cross-attention the source on the left, the target on the right; for
// self-attention the same sentence twice), and a line per weight from key to query whose opacity is the
// weight. One head in one colour, or, with the mean selected, every head of the layer in its own colour.
// Hovering a token keeps only its lines.

#include "ui/base/ShownAttention.h"

#include <QWidget>

namespace ui {

class LinesView : public QWidget {
    Q_OBJECT
public:
    explicit LinesView(QWidget* parent = nullptr);

    void setShown(const ShownAttention& shown);
    /// A token marked elsewhere (a query row: Horizontal; a key column: Vertical) is kept like a hovered one.
    void setMarkedToken(Qt::Orientation orientation, int index);

    /// The lines drawn now (weights of at least kMinWeight, of the tokens kept): for tests.
    int lineCount() const;
    /// The heads drawn (one, or the layer's every head when the mean is selected).
    int headCount() const;
    /// Keeps only the lines of query `row` (rightSide) or key `column`; −1 shows all.
    void isolate(bool rightSide, int index);
    QPoint tokenCenter(bool rightSide, int index) const;

    /// Lines fainter than this are not drawn: at 1/length each a long text would be a grey wash.
    static constexpr float kMinWeight = 0.02f;
    static constexpr int kMaxTokens = 400;

protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;

private:
    struct Geometry {
        double top = 0, step = 0, leftX = 0, rightX = 0, lineLeft = 0, lineRight = 0;
    };
    Geometry geometry() const;
    std::vector<int> heads() const;
    bool kept(int query, int key) const;

    ShownAttention shown_;
    int hoverSide_ = -1; // 0 left (keys), 1 right (queries)
    int hoverIndex_ = -1;
    int markSide_ = -1;
    int markIndex_ = -1;
};

} // namespace ui
