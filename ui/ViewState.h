#pragma once
// The one small object every attention view listens to: which kind, layer and head are shown, how
// colours are scaled, and which token is marked. Views never ask each other; they follow these signals.

#include "core/run/AttentionSnapshot.h"
#include "ui/ColorMap.h"

#include <QObject>

namespace ui {

class ViewState : public QObject {
    Q_OBJECT
public:
    /// The head index that stands for "mean over the layer's heads".
    static constexpr int kMeanHead = -1;

    explicit ViewState(QObject* parent = nullptr);

    core::AttentionKind kind() const { return kind_; }
    int layer() const { return layer_; }
    int head() const { return head_; }
    ScaleMode scaleMode() const { return scaleMode_; }
    const ColorMap& colorMap() const { return colorMap_; }
    Qt::Orientation markOrientation() const { return markOrientation_; }
    int markIndex() const { return markIndex_; }

    void setKind(core::AttentionKind kind);
    /// Clamps to the current shape; head may be kMeanHead.
    void setSelection(int layer, int head);
    /// Moves the selection: heads run 0 … H−1 and then the mean, layers 0 … L−1; both stop at the ends.
    void navigate(int dLayer, int dHead);
    /// The number of layers and heads of the shown kind, so navigation knows its bounds.
    void setShape(int layers, int heads);
    void setScaleMode(ScaleMode mode);
    void setColorMap(const QString& name);
    /// A token clicked in a strip: Horizontal marks a query row, Vertical a key column; −1 clears.
    void setMarkedToken(Qt::Orientation orientation, int index);
    /// A click on a token of the source or target strip, turned into a row or column of the shown kind:
    /// the row when that side is the kind's query side, its column otherwise; `column` asks for the column
    /// where the side is both (self-attention). Returns false when the side plays no part in the kind.
    bool markFromStrip(bool sourceSide, int index, bool column);
    /// The index to fill in the source or target strip for the current mark, or −1.
    int markedOnStrip(bool sourceSide) const;

Q_SIGNALS:
    void kindChanged(core::AttentionKind kind);
    void selectionChanged(int layer, int head);
    void scaleModeChanged(ui::ScaleMode mode);
    void colorMapChanged(const ui::ColorMap& map);
    void markedTokenChanged(Qt::Orientation orientation, int index);

private:
    core::AttentionKind kind_ = core::AttentionKind::Encoder;
    int layer_ = 0;
    int head_ = 0;
    int layers_ = 1;
    int heads_ = 1;
    ScaleMode scaleMode_ = ScaleMode::Fixed;
    ColorMap colorMap_ = ColorMap::byName(QString());
    Qt::Orientation markOrientation_ = Qt::Horizontal;
    int markIndex_ = -1;
};

} // namespace ui
