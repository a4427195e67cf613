#include "ui/base/ShownAttention.h"

namespace ui {

namespace {

// Stands in for a missing snapshot, so the token accessors always have vectors to return (and to compare).
const core::AttentionSnapshot& none() {
    static const core::AttentionSnapshot empty;
    return empty;
}

} // namespace

const core::AttentionBlock* ShownAttention::weights() const {
    if (!snapshot || !snapshot->has(kind))
        return nullptr;
    return &snapshot->block(kind);
}

const core::AttentionBlock* ShownAttention::block() const {
    if (valueWeighted && snapshot && !snapshot->weighted(kind).empty())
        return &snapshot->weighted(kind);
    return weights();
}

const std::vector<core::Token>& ShownAttention::queryTokens() const {
    return core::queryTokens(snapshot ? *snapshot : none(), kind);
}

const std::vector<core::Token>& ShownAttention::keyTokens() const {
    return core::keyTokens(snapshot ? *snapshot : none(), kind);
}

const std::vector<core::Token>& ShownAttention::sourceTokens() const {
    return (snapshot ? *snapshot : none()).srcTokens;
}

const std::vector<core::Token>& ShownAttention::targetTokens() const {
    return (snapshot ? *snapshot : none()).tgtTokens;
}

ShownAttention::Changes ShownAttention::diff(const ShownAttention& before) const {
    Changes changes;
    // Switching the colour source changes the block the views draw, as another snapshot would.
    if (snapshot != before.snapshot || kind != before.kind || block() != before.block())
        changes |= Change::Block;
    if (layer != before.layer || head != before.head)
        changes |= Change::Selection;
    if (scale != before.scale)
        changes |= Change::Scale;
    if (colorMap.name() != before.colorMap.name())
        changes |= Change::Colours;
    if (valueWeighted != before.valueWeighted)
        changes |= Change::Source;
    if (headsOff != before.headsOff)
        changes |= Change::HeadsOff;
    return changes;
}

} // namespace ui
