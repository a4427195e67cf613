#include "ui/AttentionPage.h"

#include "ui/AttentionGrid.h"
#include "ui/AttentionText.h"
#include "ui/CandidatesChart.h"
#include "ui/DecodePanel.h"
#include "ui/HeatmapView.h"
#include "ui/TokenStrip.h"
#include "ui/ViewState.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QScrollArea>
#include <QScrollBar>

#include <QSignalBlocker>
#include <QSplitter>
#include <QVBoxLayout>
#include <algorithm>
#include <utility>

namespace ui {

using core::AttentionKind;

AttentionPage::AttentionPage(ViewState* state, QWidget* parent) : QWidget(parent), state_(state) {
    setObjectName(QStringLiteral("attentionPage"));
    build();
    follow();
}

void AttentionPage::build() {
    auto* col = new QVBoxLayout(this);
    auto* controls = new QHBoxLayout;
    kind_ = new QComboBox(this);
    kind_->setObjectName(QStringLiteral("kindCombo"));
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
    controls->addStretch(1);
    col->addLayout(controls);

    decode_ = new DecodePanel(this);
    col->addWidget(decode_);
    srcStrip_ = new TokenStrip(tr("source"), this);
    srcStrip_->setObjectName(QStringLiteral("sourceStrip"));
    srcStrip_->setEmptyText(tr("(type a sentence above)"));
    srcStrip_->setToolTip(
        tr("The source as the model reads it. Unknown characters are marked, not dropped."));
    tgtStrip_ = new TokenStrip(tr("target"), this);
    tgtStrip_->setObjectName(QStringLiteral("targetStrip"));
    tgtStrip_->setToolTip(tr("The decoder's input: <bos> and the tokens decoded so far; the outlined one "
                             "is being fed now and produces the next token."));
    // Long texts would push the heatmaps off the page: each strip scrolls after a few lines, and a short
    // one takes only the room it needs.
    srcScroll_ = stripScroll(srcStrip_);
    tgtScroll_ = stripScroll(tgtStrip_);
    col->addWidget(srcScroll_);
    col->addWidget(tgtScroll_);

    splitter_ = new QSplitter(Qt::Horizontal, this);
    splitter_->setObjectName(QStringLiteral("mainSplitter"));
    grid_ = new AttentionGrid(splitter_);
    grid_->setObjectName(QStringLiteral("attentionGrid"));
    heatmap_ = new HeatmapView(splitter_);
    heatmap_->setObjectName(QStringLiteral("heatmapView"));
    candidates_ = new CandidatesChart(splitter_);
    candidates_->setObjectName(QStringLiteral("candidatesChart"));
    candidates_->setMinimumWidth(200);
    splitter_->addWidget(grid_);
    splitter_->addWidget(heatmap_);
    splitter_->addWidget(candidates_);
    splitter_->setStretchFactor(0, 3);
    splitter_->setStretchFactor(1, 4);
    splitter_->setStretchFactor(2, 2);
    splitter_->setSizes({520, 640, 280});
    col->addWidget(splitter_, 1);
}

QScrollArea* AttentionPage::stripScroll(TokenStrip* strip) {
    auto* scroll = new QScrollArea(this);
    scroll->setObjectName(strip->objectName() + QStringLiteral("Scroll"));
    scroll->setWidget(strip);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->viewport()->setAutoFillBackground(false);
    strip->setAutoFillBackground(false);
    return scroll;
}

void AttentionPage::fitStrips() {
    // A strip wraps to the page's width, so its height follows the width; the scroll area takes that
    // height up to a few lines and scrolls beyond.
    for (auto [scroll, strip] : {std::pair{srcScroll_, srcStrip_}, std::pair{tgtScroll_, tgtStrip_}}) {
        const int width = scroll->width() - scroll->verticalScrollBar()->sizeHint().width();
        scroll->setFixedHeight(
            std::min(strip->heightForWidth(std::max(width, 100)), strip->maximumVisibleHeight()));
    }
}

void AttentionPage::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    fitStrips();
}

void AttentionPage::follow() {
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
    connect(grid_, &AttentionGrid::tileClicked, state_, &ViewState::setSelection);
    connect(grid_, &AttentionGrid::navigate, state_, &ViewState::navigate);
    connect(heatmap_, &HeatmapView::navigate, state_, &ViewState::navigate);
    connect(srcStrip_, &TokenStrip::tokenClicked, this, [this](int i, Qt::KeyboardModifiers m) {
        if (!state_->markFromStrip(true, i, m & Qt::ShiftModifier))
            Q_EMIT hint(tr("Source tokens play no part in decoder self-attention"));
    });
    connect(tgtStrip_, &TokenStrip::tokenClicked, this, [this](int i, Qt::KeyboardModifiers m) {
        if (!state_->markFromStrip(false, i, m & Qt::ShiftModifier))
            Q_EMIT hint(tr("Target tokens play no part in encoder self-attention"));
    });

    // View state → views: each view hears only what it draws.
    connect(state_, &ViewState::kindChanged, this, [this](AttentionKind k) {
        const int idx = kind_->findData(static_cast<int>(k));
        if (idx >= 0 && idx != kind_->currentIndex()) {
            const QSignalBlocker block(kind_);
            kind_->setCurrentIndex(idx);
        }
        grid_->setKind(k);
        heatmap_->setKind(k);
        if (result_) {
            const auto& b = result_->snapshot->block(k);
            state_->setShape(b.layers, b.heads);
        }
        updateCurrentQuery();
        updateStrips();
    });
    connect(state_, &ViewState::selectionChanged, this, [this](int l, int h) {
        grid_->setSelection(l, h);
        heatmap_->setSelection(l, h);
    });
    connect(state_, &ViewState::scaleModeChanged, this, [this](ScaleMode m) {
        // One mode at a time: each box shows whether its mode is the one on.
        const QSignalBlocker block(perHead_), blockLog(logScale_);
        perHead_->setChecked(m == ScaleMode::PerHead);
        logScale_->setChecked(m == ScaleMode::Log);
        grid_->setScaleMode(m);
        heatmap_->setScaleMode(m);
    });
    connect(state_, &ViewState::colorMapChanged, this, [this](const ColorMap& m) {
        const QSignalBlocker block(colorMap_);
        colorMap_->setCurrentText(m.name());
        grid_->setColorMap(m);
        heatmap_->setColorMap(m);
    });
    connect(state_, &ViewState::markedTokenChanged, this, [this](Qt::Orientation o, int i) {
        heatmap_->setMarkedToken(o, i);
        updateStrips();
    });
}

void AttentionPage::setModelKinds(bool hasEncoder) {
    const auto current = state_->kind();
    {
        const QSignalBlocker block(kind_);
        kind_->clear();
        for (auto k : {AttentionKind::Encoder, AttentionKind::Decoder, AttentionKind::Cross})
            if (hasEncoder || k == AttentionKind::Decoder)
                kind_->addItem(AttentionText::kindLabel(k), static_cast<int>(k));
        const int idx = kind_->findData(static_cast<int>(current));
        kind_->setCurrentIndex(idx < 0 ? 0 : idx);
    }
    state_->setKind(static_cast<AttentionKind>(kind_->currentData().toInt()));
}

void AttentionPage::setHeadScores(const std::vector<core::HeadScores>& scores) {
    grid_->setHeadScores(scores);
}

void AttentionPage::selectKind(AttentionKind kind) {
    const int idx = kind_->findData(static_cast<int>(kind));
    if (idx >= 0)
        kind_->setCurrentIndex(idx);
}

void AttentionPage::showResult(const RunResultPtr& r) {
    result_ = r;
    const auto& snap = r->snapshot;
    const auto& b = snap->block(state_->kind());
    state_->setShape(b.layers, b.heads);
    grid_->setSnapshot(snap);
    heatmap_->setSnapshot(snap);
    srcStrip_->setTokens(snap->srcTokens);
    srcStrip_->setEmptyText(snap->srcTokens.empty() && !snap->tgtTokens.empty()
                                ? tr("(a decoder-only model has no source: the prompt is the target)")
                                : tr("(type a sentence above)"));
    tgtStrip_->setTokens(snap->tgtTokens);
    tgtStrip_->setCurrent(static_cast<int>(snap->tgtTokens.size()) - 1);
    fitStrips();
    const QRect newest = tgtStrip_->chipRect(tgtStrip_->count() - 1);
    tgtScroll_->ensureVisible(newest.center().x(), newest.center().y(), 0, newest.height());
    updateCurrentQuery();
    updateStrips();
    candidates_->setCandidates(r->top, r->finished);
    decode_->setState(r->step, r->finished, true, r->decodedText);
}

void AttentionPage::clear() {
    result_.reset();
    grid_->setSnapshot(nullptr);
    heatmap_->setSnapshot(nullptr);
    srcStrip_->setTokens({});
    tgtStrip_->setTokens({});
    fitStrips();
    candidates_->setCandidates({}, false);
    decode_->setState(0, false, false, QString());
}

void AttentionPage::updateCurrentQuery() {
    // The row of the token being fed now, whose output is the next token: decoder-side kinds only.
    const int q = (result_ && state_->kind() != AttentionKind::Encoder)
                      ? static_cast<int>(result_->snapshot->tgtTokens.size()) - 1
                      : -1;
    grid_->setHighlightedQuery(q);
    heatmap_->setCurrentQuery(q);
}

void AttentionPage::updateStrips() {
    srcStrip_->setMarked(state_->markedOnStrip(true));
    tgtStrip_->setMarked(state_->markedOnStrip(false));
}

} // namespace ui
