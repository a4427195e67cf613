#include "ui/attention/AttentionControls.h"

#include "ui/base/AttentionText.h"
#include "ui/base/ViewState.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>

namespace ui {

using core::AttentionKind;

AttentionControls::AttentionControls(ViewState* state, QWidget* parent) : QWidget(parent), state_(state) {
    setObjectName(QStringLiteral("attentionControls"));
    build();
    follow();
}

void AttentionControls::build() {
    auto* controls = new QHBoxLayout(this);
    controls->setContentsMargins(0, 0, 0, 0);
    kind_ = new QComboBox(this);
    kind_->setObjectName(QStringLiteral("kindCombo"));
    // The kinds offered change with the model family of the snapshot shown, and so does the longest label.
    kind_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    kind_->setToolTip(tr("Which attention to show: the encoder's over the source, the decoder's masked "
                         "attention over the target so far, or the decoder's attention to the source "
                         "(Ctrl+1, Ctrl+2, Ctrl+3)"));
    colorMap_ = new QComboBox(this);
    colorMap_->setObjectName(QStringLiteral("colorMapCombo"));
    colorMap_->addItems(ColorMap::names());
    colorMap_->setToolTip(tr("Colour map; viridis and magma are perceptually uniform"));
    perHead_ = new QCheckBox(tr("Per-head scale"), this);
    perHead_->setObjectName(QStringLiteral("perHeadCheck"));
    perHead_->setToolTip(tr("Off: every head on the same [0, 1] scale, so heads compare. On: each head "
                            "stretched to its own range, so faint structure shows (Ctrl+K)"));
    logScale_ = new QCheckBox(tr("Log scale"), this);
    logScale_->setObjectName(QStringLiteral("logScaleCheck"));
    logScale_->setToolTip(tr("Colours by orders of magnitude, from 10\u207b\u2074 to 1: over a long text "
                             "most weights are near 1/length, which the [0, 1] scale paints all alike "
                             "(Ctrl+Shift+K)"));
    controls->addWidget(kind_);
    controls->addSpacing(8);
    controls->addWidget(new QLabel(tr("Colours"), this));
    controls->addWidget(colorMap_);
    controls->addWidget(perHead_);
    controls->addWidget(logScale_);
    lines_ = new QCheckBox(tr("Lines"), this);
    lines_->setObjectName(QStringLiteral("linesCheck"));
    lines_->setToolTip(tr("Show the selected head as lines between the tokens instead of a heatmap; with "
                          "the mean selected, every head in its own colour (Ctrl+Shift+L)"));
    controls->addWidget(lines_);
    valueWeighted_ = new QCheckBox(tr("Weight \u00d7 value"), this);
    valueWeighted_->setObjectName(QStringLiteral("valueWeightedCheck"));
    valueWeighted_->setToolTip(
        tr("Colour each weight by what it carries: weight \u00d7 \u2016v W_O\u2016 of its key, rows "
           "renormalised. "
           "A head can put most of its weight on a token whose value is nearly zero (Ctrl+Shift+V)"));
    controls->addWidget(valueWeighted_);
    headsOff_ = new QLabel(this);
    headsOff_->setObjectName(QStringLiteral("ablatedLabel"));
    headsOff_->setStyleSheet(QStringLiteral("color: #c62828; font-weight: bold"));
    headsOff_->hide();
    controls->addWidget(headsOff_);
    controls->addStretch(1);
}

void AttentionControls::follow() {
    // Controls → view state.
    connect(kind_, qOverload<int>(&QComboBox::currentIndexChanged), this, [this](int i) {
        if (i >= 0)
            state_->setKind(static_cast<AttentionKind>(kind_->itemData(i).toInt()));
    });
    connect(colorMap_, &QComboBox::currentTextChanged, state_, &ViewState::setColorMap);
    connect(perHead_, &QCheckBox::toggled, state_,
            [this](bool on) { state_->setScaleMode(on ? ScaleMode::PerHead : ScaleMode::Fixed); });
    connect(logScale_, &QCheckBox::toggled, state_,
            [this](bool on) { state_->setScaleMode(on ? ScaleMode::Log : ScaleMode::Fixed); });
    connect(lines_, &QCheckBox::toggled, state_, &ViewState::setLinesShown);
    connect(valueWeighted_, &QCheckBox::toggled, state_, &ViewState::setValueWeighted);

    // View state → controls, however it changed (a menu key, a lesson, the settings).
    connect(state_, &ViewState::kindChanged, this, [this](AttentionKind k) {
        const int idx = kind_->findData(static_cast<int>(k));
        if (idx >= 0 && idx != kind_->currentIndex()) {
            const QSignalBlocker block(kind_);
            kind_->setCurrentIndex(idx);
        }
    });
    connect(state_, &ViewState::scaleModeChanged, this, [this](ScaleMode m) {
        // One mode at a time: each box shows whether its mode is the one on.
        const QSignalBlocker block(perHead_), blockLog(logScale_);
        perHead_->setChecked(m == ScaleMode::PerHead);
        logScale_->setChecked(m == ScaleMode::Log);
    });
    connect(state_, &ViewState::colorMapChanged, this, [this](const ColorMap& m) {
        const QSignalBlocker block(colorMap_);
        colorMap_->setCurrentText(m.name());
    });
    connect(state_, &ViewState::linesShownChanged, this, [this](bool on) {
        const QSignalBlocker block(lines_);
        lines_->setChecked(on);
    });
    connect(state_, &ViewState::valueWeightedChanged, this, [this](bool on) {
        const QSignalBlocker block(valueWeighted_);
        valueWeighted_->setChecked(on);
    });
    connect(state_, &ViewState::headsOffChanged, this, [this](const core::HeadAblation& heads) {
        const auto off = static_cast<int>(heads.size());
        headsOff_->setText(tr("%n head(s) off", nullptr, off));
        headsOff_->setToolTip(tr("Switched off (their output zeroed before W_O): %1. Ctrl+click a tile to "
                                 "switch one back on; Ctrl+Shift+H switches them all on")
                                  .arg(QString::fromStdString(heads.text())));
        headsOff_->setVisible(off > 0);
    });
}

void AttentionControls::offer(const std::vector<AttentionKind>& kinds) {
    const auto current = state_->kind();
    {
        const QSignalBlocker block(kind_);
        kind_->clear();
        for (auto k : kinds)
            kind_->addItem(AttentionText::kindLabel(k), static_cast<int>(k));
        const int idx = kind_->findData(static_cast<int>(current));
        kind_->setCurrentIndex(idx < 0 ? 0 : idx);
    }
    if (kind_->count() > 0)
        state_->setKind(static_cast<AttentionKind>(kind_->currentData().toInt()));
}

void AttentionControls::selectKind(AttentionKind kind) {
    const int idx = kind_->findData(static_cast<int>(kind));
    if (idx >= 0)
        kind_->setCurrentIndex(idx);
}

void AttentionControls::setForClassifier(bool classifier) {
    for (QWidget* w : {static_cast<QWidget*>(lines_), static_cast<QWidget*>(perHead_),
                       static_cast<QWidget*>(logScale_), static_cast<QWidget*>(valueWeighted_)})
        w->setVisible(!classifier);
}

void AttentionControls::setValueWeightingAvailable(bool available) {
    valueWeighted_->setEnabled(available);
}

} // namespace ui
