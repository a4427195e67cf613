#include "ui/ViewState.h"

#include <algorithm>

namespace ui {

ViewState::ViewState(QObject* parent) : QObject(parent) {}

void ViewState::setKind(core::AttentionKind kind) {
    if (kind == kind_)
        return;
    kind_ = kind;
    // A marked token belongs to the previous kind's axes; keeping it would mark an unrelated row.
    setMarkedToken(Qt::Horizontal, -1);
    Q_EMIT kindChanged(kind_);
}

void ViewState::setSelection(int layer, int head) {
    layer = std::clamp(layer, 0, std::max(0, layers_ - 1));
    head = head == kMeanHead ? kMeanHead : std::clamp(head, 0, std::max(0, heads_ - 1));
    if (layer == layer_ && head == head_)
        return;
    layer_ = layer;
    head_ = head;
    Q_EMIT selectionChanged(layer_, head_);
}

void ViewState::navigate(int dLayer, int dHead) {
    // The mean sits after the last head, as in the grid's last column.
    const int pos = head_ == kMeanHead ? heads_ : head_;
    const int next = std::clamp(pos + dHead, 0, heads_);
    setSelection(layer_ + dLayer, next == heads_ ? kMeanHead : next);
}

void ViewState::setShape(int layers, int heads) {
    layers_ = std::max(1, layers);
    heads_ = std::max(1, heads);
    const int layer = layer_, head = head_;
    layer_ = -1; // makes setSelection see a change, so views hear the (possibly clamped) selection again
    setSelection(layer, head);
}

void ViewState::setScaleMode(ScaleMode mode) {
    if (mode == scaleMode_)
        return;
    scaleMode_ = mode;
    Q_EMIT scaleModeChanged(mode);
}

void ViewState::setColorMap(const QString& name) {
    auto map = ColorMap::byName(name);
    if (map.name() == colorMap_.name())
        return;
    colorMap_ = map;
    Q_EMIT colorMapChanged(colorMap_);
}

void ViewState::setMarkedToken(Qt::Orientation orientation, int index) {
    if (orientation == markOrientation_ && index == markIndex_)
        return;
    markOrientation_ = orientation;
    markIndex_ = index;
    Q_EMIT markedTokenChanged(orientation, index);
}

bool ViewState::markFromStrip(bool sourceSide, int index, bool column) {
    using K = core::AttentionKind;
    const bool querySide = kind_ == K::Encoder ? sourceSide : !sourceSide;
    const bool keySide = kind_ == K::Decoder ? !sourceSide : sourceSide;
    if (!querySide && !keySide)
        return false;
    const bool asColumn = !querySide || (keySide && column);
    setMarkedToken(asColumn ? Qt::Vertical : Qt::Horizontal, index);
    return true;
}

int ViewState::markedOnStrip(bool sourceSide) const {
    using K = core::AttentionKind;
    if (markIndex_ < 0)
        return -1;
    // Rows are queries, columns keys: find which side that axis belongs to in the shown kind.
    const bool rowsAreSource = kind_ == K::Encoder;
    const bool colsAreSource = kind_ != K::Decoder;
    const bool markOnSource = markOrientation_ == Qt::Horizontal ? rowsAreSource : colsAreSource;
    return markOnSource == sourceSide ? markIndex_ : -1;
}

} // namespace ui
