#pragma once
// The row above the decode panel: which kind of attention, the colour map, the scale's modes, lines instead
// of the heatmap, weight × value, and how many heads are switched off. Every box follows the ViewState and
// sets it; none of them knows the views.

#include "core/model/AttentionBlock.h"

#include <QWidget>

#include <vector>

class QCheckBox;
class QComboBox;
class QLabel;

namespace ui {

class ViewState;

class AttentionControls : public QWidget {
    Q_OBJECT
public:
    explicit AttentionControls(ViewState* state, QWidget* parent = nullptr);

    /// Offers these kinds in the selector, keeping the state's kind where it is offered and else taking the
    /// first; the state follows the selector.
    void offer(const std::vector<core::AttentionKind>& kinds);
    /// Picks a kind in the selector when it is offered.
    void selectKind(core::AttentionKind kind);
    /// A classifier's answer has no weights to scale or draw as lines: those boxes step aside.
    void setForClassifier(bool classifier);
    /// Value norms exist only where there are values and an output projection (a Transformer).
    void setValueWeightingAvailable(bool available);

private:
    void build();
    void follow();

    ViewState* state_;
    QComboBox* kind_ = nullptr;
    QComboBox* colorMap_ = nullptr;
    QCheckBox* perHead_ = nullptr;
    QCheckBox* logScale_ = nullptr;
    QCheckBox* lines_ = nullptr;
    QCheckBox* valueWeighted_ = nullptr;
    QLabel* headsOff_ = nullptr; // how many heads are off, while any are
};

} // namespace ui
