#pragma once
// The one small object every attention view listens to: what is shown (snapshot, kind, layer and head,
// colour scaling, as one ShownAttention), which token is marked, the display toggles (the scale's modes,
// weight × value, lines instead of the heatmap) and the heads switched off. Views, their checkboxes, the
// menus and the analysis never ask each other; they follow these signals and set the state.

#include "core/run/AttentionSnapshot.h"
#include "ui/base/ColorMap.h"
#include "ui/base/ShownAttention.h"

#include <QObject>

#include <memory>
#include <optional>

namespace ui {

class ViewState : public QObject {
    Q_OBJECT
public:
    explicit ViewState(QObject* parent = nullptr);

    const ShownAttention& shown() const { return shown_; }
    core::AttentionKind kind() const { return shown_.kind; }
    int layer() const { return shown_.layer; }
    int head() const { return shown_.head; }
    ScaleMode scaleMode() const { return shown_.scale; }
    const ColorMap& colorMap() const { return shown_.colorMap; }
    Qt::Orientation markOrientation() const { return markOrientation_; }
    int markIndex() const { return markIndex_; }

    /// The snapshot to show (null: nothing). The selection is clamped to its shape of the shown kind.
    void setSnapshot(std::shared_ptr<const core::AttentionSnapshot> snapshot);
    void setKind(core::AttentionKind kind);
    /// Clamps to the current shape; head may be core::kMeanHead.
    void setSelection(int layer, int head);
    /// Moves the selection: heads run 0 … H−1 and then the mean, layers 0 … L−1; both stop at the ends.
    void navigate(int dLayer, int dHead);
    void setScaleMode(ScaleMode mode);
    /// Switches a scale mode (per-head, log) on, or back to the fixed scale when it is the one on: what the
    /// page's boxes and the View menu's keys do.
    void toggleScaleMode(ScaleMode mode) { setScaleMode(shown_.scale == mode ? ScaleMode::Fixed : mode); }
    /// Colour by weight × value norm (see ShownAttention::valueWeighted) or by the weights.
    void setValueWeighted(bool on);
    bool valueWeighted() const { return shown_.valueWeighted; }
    /// The detail pane draws the shown head's weights as lines between the tokens instead of a heatmap.
    void setLinesShown(bool on);
    bool linesShown() const { return lines_; }
    void setColorMap(const QString& name);
    /// The heads switched off in every run from now on (empty: all on). Every change enters here and is
    /// checked against the model they belong to (setHeadsModel): a set that model does not have is refused
    /// with headsOffRefused, naming the head, and the set before is kept. Returns whether `heads` is the set.
    bool setHeadsOff(const core::HeadAblation& heads);
    /// Switches one head off, or back on.
    bool toggleHeadOff(const core::HeadRef& head);
    const core::HeadAblation& headsOff() const { return shown_.headsOff; }
    /// The model whose heads can be switched off, shared with the model that holds it (null: none loaded).
    /// Another model switches every head back on: they were the last model's heads.
    void setHeadsModel(std::shared_ptr<const core::ModelConfig> config);
    /// A token clicked in a strip: Horizontal marks a query row, Vertical a key column; −1 clears.
    void setMarkedToken(Qt::Orientation orientation, int index);
    /// A click on a token of the source or target strip, turned into a row or column of the shown kind:
    /// the row when that side is the kind's query side, its column otherwise; `column` asks for the column
    /// where the side is both (self-attention). Returns false when the side plays no part in the kind.
    bool markFromStrip(bool sourceSide, int index, bool column);
    /// The index to fill in the source or target strip for the current mark, or −1.
    int markedOnStrip(bool sourceSide) const;

Q_SIGNALS:
    /// Anything of what is shown changed; views diff it against what they drew.
    void shownChanged(const ui::ShownAttention& shown);
    void kindChanged(core::AttentionKind kind);
    void selectionChanged(int layer, int head);
    void scaleModeChanged(ui::ScaleMode mode);
    void valueWeightedChanged(bool on);
    void colorMapChanged(const ui::ColorMap& map);
    void markedTokenChanged(Qt::Orientation orientation, int index);
    void linesShownChanged(bool on);
    void headsOffChanged(const core::HeadAblation& heads);
    /// A set of heads the model does not have was asked for (and the set before kept): why.
    void headsOffRefused(const QString& message);

private:
    /// Takes the shape of the shown block (when there is one) and clamps the selection to it; true when the
    /// selection changed.
    bool fitSelection();
    bool select(int layer, int head);
    void announce(ShownAttention::Changes changes);

    ShownAttention shown_;
    // The shape the selection is clamped to: the last shown block's, kept while nothing is shown.
    int layers_ = 1;
    int heads_ = 1;
    Qt::Orientation markOrientation_ = Qt::Horizontal;
    int markIndex_ = -1;
    bool lines_ = false;
    std::shared_ptr<const core::ModelConfig> headsModel_;
};

} // namespace ui
