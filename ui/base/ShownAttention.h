#pragma once
// What an attention view shows, as one value: the snapshot, the kind, the layer and head, how weights
// are coloured, and which heads are switched off. ViewState holds the one current value; the grid and the
// detail heatmap each keep the value they last drew, and diff() tells them what a new one changes, so each
// repaints only that.

#include "core/model/HeadAblation.h"
#include "core/run/AttentionSnapshot.h"
#include "ui/base/ColorMap.h"

#include <QFlags>
#include <QMetaType>

#include <memory>
#include <vector>

namespace ui {

struct ShownAttention {
    std::shared_ptr<const core::AttentionSnapshot> snapshot; ///< null before a first result
    core::AttentionKind kind = core::AttentionKind::Encoder;
    int layer = 0;
    int head = 0; ///< or core::kMeanHead
    ScaleMode scale = ScaleMode::Fixed;
    ColorMap colorMap = ColorMap::byName(QString());
    /// Colour by what the weights carry: α_ij·‖v_j W_O^(h)‖, rows renormalised (core::valueWeighted), where
    /// the snapshot holds it.
    bool valueWeighted = false;
    /// The heads switched off in the runs from now on; the grid crosses out their tiles.
    core::HeadAblation headsOff{};

    /// What the views colour: the value-weighted block when asked for and the snapshot holds it, else the
    /// weights of the kind; nullptr when there is no snapshot or it lacks the kind.
    const core::AttentionBlock* block() const;
    /// The attention weights themselves, whatever colours the views (tooltips give both).
    const core::AttentionBlock* weights() const;
    /// Whether block() is the value-weighted block.
    bool showsValueWeighted() const { return block() != weights(); }
    /// The tokens that label the rows and the columns (core::queryTokens and core::keyTokens); empty
    /// without a snapshot.
    const std::vector<core::Token>& queryTokens() const;
    const std::vector<core::Token>& keyTokens() const;
    /// The snapshot's source and target tokens (empty without one). A side labels the rows or the columns
    /// when it is the very vector queryTokens() or keyTokens() returns.
    const std::vector<core::Token>& sourceTokens() const;
    const std::vector<core::Token>& targetTokens() const;
    /// Masked self-attention: a row sees only the keys up to its own position.
    bool causal() const { return kind == core::AttentionKind::Decoder; }
    /// Whether rows and columns are the same tokens (self-attention), so a query's own position is a key.
    bool selfAttention() const { return &queryTokens() == &keyTokens(); }
    /// Whether the rows are target tokens, each the input that produces the next one (decoder self- and
    /// cross-attention): where the token being fed now is a row.
    bool rowsAreTarget() const { return &queryTokens() == &targetTokens(); }

    enum class Change {
        Block = 1,     ///< the snapshot or the kind: other weights altogether
        Selection = 2, ///< the layer or the head
        Scale = 4,     ///< the scale mode
        Colours = 8,   ///< the colour map
        Source = 16,   ///< weights or weight × value norm
        HeadsOff = 32, ///< the heads switched off
    };
    Q_DECLARE_FLAGS(Changes, Change)
    /// What differs from `before`; empty when both show the same.
    Changes diff(const ShownAttention& before) const;
};

} // namespace ui

Q_DECLARE_OPERATORS_FOR_FLAGS(ui::ShownAttention::Changes)
Q_DECLARE_METATYPE(ui::ShownAttention)
