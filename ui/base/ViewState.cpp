#include "ui/base/ViewState.h"

#include "core/base/Errors.h"

#include <algorithm>

namespace ui {

using Change = ShownAttention::Change;

ViewState::ViewState(QObject* parent) : QObject(parent) {}

void ViewState::setSnapshot(std::shared_ptr<const core::AttentionSnapshot> snapshot) {
    if (snapshot == shown_.snapshot)
        return;
    shown_.snapshot = std::move(snapshot);
    announce(fitSelection() ? Change::Block | Change::Selection : ShownAttention::Changes(Change::Block));
}

void ViewState::setKind(core::AttentionKind kind) {
    if (kind == shown_.kind)
        return;
    shown_.kind = kind;
    // A marked token belongs to the previous kind's axes; keeping it would mark an unrelated row.
    setMarkedToken(Qt::Horizontal, -1);
    announce(fitSelection() ? Change::Block | Change::Selection : ShownAttention::Changes(Change::Block));
}

void ViewState::setSelection(int layer, int head) {
    if (select(layer, head))
        announce(Change::Selection);
}

void ViewState::navigate(int dLayer, int dHead) {
    // The mean sits after the last head, as in the grid's last column.
    const int pos = shown_.head == core::kMeanHead ? heads_ : shown_.head;
    const int next = std::clamp(pos + dHead, 0, heads_);
    setSelection(shown_.layer + dLayer, next == heads_ ? core::kMeanHead : next);
}

bool ViewState::fitSelection() {
    if (shown_.snapshot) {
        // A kind the snapshot lacks has no shape: one layer and one head, as if it were there.
        const auto& b = shown_.snapshot->block(shown_.kind);
        layers_ = std::max(1, b.layers);
        heads_ = std::max(1, b.heads);
    }
    return select(shown_.layer, shown_.head);
}

bool ViewState::select(int layer, int head) {
    layer = std::clamp(layer, 0, std::max(0, layers_ - 1));
    head = head == core::kMeanHead ? core::kMeanHead : std::clamp(head, 0, std::max(0, heads_ - 1));
    if (layer == shown_.layer && head == shown_.head)
        return false;
    shown_.layer = layer;
    shown_.head = head;
    return true;
}

void ViewState::setScaleMode(ScaleMode mode) {
    if (mode == shown_.scale)
        return;
    shown_.scale = mode;
    announce(Change::Scale);
}

void ViewState::setValueWeighted(bool on) {
    if (on == shown_.valueWeighted)
        return;
    shown_.valueWeighted = on;
    announce(Change::Source);
}

void ViewState::setLinesShown(bool on) {
    if (on == lines_)
        return;
    lines_ = on;
    Q_EMIT linesShownChanged(on);
}

bool ViewState::setHeadsOff(const core::HeadAblation& heads) {
    if (heads == shown_.headsOff)
        return true;
    if (!heads.empty()) {
        try {
            if (!headsModel_)
                throw core::InputError("no model is loaded whose heads could be switched off");
            core::checkAblation(heads, *headsModel_);
        } catch (const core::InputError& e) {
            Q_EMIT headsOffRefused(QString::fromStdString(e.what()));
            return false;
        }
    }
    shown_.headsOff = heads;
    Q_EMIT headsOffChanged(shown_.headsOff);
    announce(Change::HeadsOff);
    return true;
}

bool ViewState::toggleHeadOff(const core::HeadRef& head) {
    auto heads = shown_.headsOff;
    heads.toggle(head);
    return setHeadsOff(heads);
}

void ViewState::setHeadsModel(std::shared_ptr<const core::ModelConfig> config) {
    headsModel_ = std::move(config);
    setHeadsOff({});
}

void ViewState::setColorMap(const QString& name) {
    auto map = ColorMap::byName(name);
    if (map.name() == shown_.colorMap.name())
        return;
    shown_.colorMap = map;
    announce(Change::Colours);
}

void ViewState::announce(ShownAttention::Changes changes) {
    // The fine-grained signals first, for what follows one property (controls, settings); then the whole
    // value, for the views.
    if (changes.testFlag(Change::Block))
        Q_EMIT kindChanged(shown_.kind);
    if (changes.testFlag(Change::Selection))
        Q_EMIT selectionChanged(shown_.layer, shown_.head);
    if (changes.testFlag(Change::Scale))
        Q_EMIT scaleModeChanged(shown_.scale);
    if (changes.testFlag(Change::Colours))
        Q_EMIT colorMapChanged(shown_.colorMap);
    if (changes.testFlag(Change::Source))
        Q_EMIT valueWeightedChanged(shown_.valueWeighted);
    Q_EMIT shownChanged(shown_);
}

void ViewState::setMarkedToken(Qt::Orientation orientation, int index) {
    if (orientation == markOrientation_ && index == markIndex_)
        return;
    markOrientation_ = orientation;
    markIndex_ = index;
    Q_EMIT markedTokenChanged(orientation, index);
}

bool ViewState::markFromStrip(bool sourceSide, int index, bool column) {
    // A side labels the rows or the columns when it is the very token vector the kind's rows or columns
    // take (core::queryTokens, core::keyTokens); pooling's one summary row is neither side.
    const auto& side = sourceSide ? shown_.sourceTokens() : shown_.targetTokens();
    const bool querySide = &shown_.queryTokens() == &side;
    const bool keySide = &shown_.keyTokens() == &side;
    if (!querySide && !keySide)
        return false;
    const bool asColumn = !querySide || (keySide && column);
    setMarkedToken(asColumn ? Qt::Vertical : Qt::Horizontal, index);
    return true;
}

int ViewState::markedOnStrip(bool sourceSide) const {
    if (markIndex_ < 0)
        return -1;
    // Rows are queries, columns keys: the mark is on a strip when its axis is labelled by that strip's side.
    const auto& axis = markOrientation_ == Qt::Horizontal ? shown_.queryTokens() : shown_.keyTokens();
    const auto& side = sourceSide ? shown_.sourceTokens() : shown_.targetTokens();
    return &axis == &side ? markIndex_ : -1;
}

} // namespace ui
