#include "ui/attention/AttentionPage.h"

#include "core/model/Model.h"
#include "ui/attention/CandidatesChart.h"
#include "ui/attention/ClassifierView.h"
#include "ui/attention/DecodePanel.h"
#include "ui/attention/LengthBanner.h"
#include "ui/attention/TokenStrip.h"
#include "ui/base/AttentionText.h"
#include "ui/base/ViewState.h"
#include "ui/views/AttentionGrid.h"
#include "ui/views/HeatmapView.h"
#include "ui/views/LinesView.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QScrollArea>
#include <QScrollBar>

#include <QSignalBlocker>
#include <QSplitter>
#include <QStackedWidget>
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
    controlsRow_ = new QWidget(this);
    controlsRow_->setObjectName(QStringLiteral("attentionControls"));
    auto* controls = new QHBoxLayout(controlsRow_);
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
    linesCheck_ = new QCheckBox(tr("Lines"), this);
    linesCheck_->setObjectName(QStringLiteral("linesCheck"));
    linesCheck_->setToolTip(
        tr("Show the selected head as lines between the tokens instead of a heatmap; with "
           "the mean selected, every head in its own colour (Ctrl+Shift+L)"));
    controls->addWidget(linesCheck_);
    valueWeighted_ = new QCheckBox(tr("Weight \u00d7 value"), this);
    valueWeighted_->setObjectName(QStringLiteral("valueWeightedCheck"));
    valueWeighted_->setToolTip(
        tr("Colour each weight by what it carries: weight \u00d7 \u2016v W_O\u2016 of its key, rows "
           "renormalised. "
           "A head can put most of its weight on a token whose value is nearly zero (Ctrl+Shift+V)"));
    controls->addWidget(valueWeighted_);
    ablated_ = new QLabel(this);
    ablated_->setObjectName(QStringLiteral("ablatedLabel"));
    ablated_->setStyleSheet(QStringLiteral("color: #c62828; font-weight: bold"));
    ablated_->hide();
    controls->addWidget(ablated_);
    controls->addStretch(1);
    col->addWidget(controlsRow_);

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
    banner_ = new LengthBanner(this);
    col->addWidget(banner_);
    col->addWidget(srcScroll_);
    col->addWidget(tgtScroll_);

    splitter_ = new QSplitter(Qt::Horizontal, this);
    splitter_->setObjectName(QStringLiteral("mainSplitter"));
    grid_ = new AttentionGrid(splitter_);
    grid_->setObjectName(QStringLiteral("attentionGrid"));
    // The detail pane: the heatmap, or the same head as lines between the tokens.
    detail_ = new QStackedWidget(splitter_);
    heatmap_ = new HeatmapView(detail_);
    heatmap_->setObjectName(QStringLiteral("heatmapView"));
    lines_ = new LinesView(detail_);
    lines_->setObjectName(QStringLiteral("linesView"));
    classifier_ = new ClassifierView(detail_);
    classifier_->setObjectName(QStringLiteral("classifierView"));
    detail_->addWidget(heatmap_);
    detail_->addWidget(lines_);
    detail_->addWidget(classifier_);
    candidates_ = new CandidatesChart(splitter_);
    candidates_->setObjectName(QStringLiteral("candidatesChart"));
    candidates_->setMinimumWidth(200);
    splitter_->addWidget(grid_);
    splitter_->addWidget(detail_);
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
    connect(grid_, &AttentionGrid::tileToggled, this, [this](int layer, int head) {
        Q_EMIT headToggled({state_->kind(), layer, head});
    });
    connect(valueWeighted_, &QCheckBox::toggled, state_, &ViewState::setValueWeighted);
    connect(state_, &ViewState::valueWeightedChanged, this, [this](bool on) {
        const QSignalBlocker block(valueWeighted_);
        valueWeighted_->setChecked(on);
    });
    connect(decode_, &DecodePanel::samplingChanged, candidates_, &CandidatesChart::setSampling);
    connect(grid_, &AttentionGrid::navigate, state_, &ViewState::navigate);
    connect(heatmap_, &HeatmapView::navigate, state_, &ViewState::navigate);
    const auto noPart = [this](const QString& side) {
        Q_EMIT hint(tr("%1 tokens play no part in %2").arg(side, AttentionText::kindName(state_->kind())));
    };
    connect(srcStrip_, &TokenStrip::tokenClicked, this, [this, noPart](int i, Qt::KeyboardModifiers m) {
        if (!state_->markFromStrip(true, i, m & Qt::ShiftModifier))
            noPart(tr("Source"));
    });
    connect(tgtStrip_, &TokenStrip::tokenClicked, this, [this, noPart](int i, Qt::KeyboardModifiers m) {
        if (!state_->markFromStrip(false, i, m & Qt::ShiftModifier))
            noPart(tr("Target"));
    });

    // View state → views: each view diffs what is shown against what it drew, and redraws only that.
    connect(state_, &ViewState::shownChanged, grid_, &AttentionGrid::setShown);
    connect(state_, &ViewState::shownChanged, heatmap_, &HeatmapView::setShown);
    connect(state_, &ViewState::shownChanged, lines_, &LinesView::setShown);
    lines_->setShown(state_->shown());
    connect(linesCheck_, &QCheckBox::toggled, state_, &ViewState::setLinesShown);
    connect(state_, &ViewState::linesShownChanged, this, [this](bool on) {
        const QSignalBlocker block(linesCheck_);
        linesCheck_->setChecked(on);
        showDetail();
    });
    connect(state_, &ViewState::colorMapChanged, classifier_, &ClassifierView::setColorMap);
    connect(classifier_, &ClassifierView::tokenClicked, this,
            [this](int i) { state_->markFromStrip(true, i, false); });
    grid_->setShown(state_->shown());
    heatmap_->setShown(state_->shown());
    // View state → the page's own controls and marks.
    connect(state_, &ViewState::shownChanged, this, &AttentionPage::fitGrid);
    connect(state_, &ViewState::kindChanged, this, [this](AttentionKind k) {
        const int idx = kind_->findData(static_cast<int>(k));
        if (idx >= 0 && idx != kind_->currentIndex()) {
            const QSignalBlocker block(kind_);
            kind_->setCurrentIndex(idx);
        }
        updateCurrentQuery();
        updateStrips();
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
    connect(state_, &ViewState::markedTokenChanged, this, [this](Qt::Orientation o, int i) {
        heatmap_->setMarkedToken(o, i);
        lines_->setMarkedToken(o, i);
        grid_->setMarkedToken(o, i);
        updateStrips();
    });
}

void AttentionPage::setModelKinds(const std::vector<AttentionKind>& kinds) {
    modelKinds_ = kinds;
    offerKinds(kinds);
}

void AttentionPage::offerKinds(std::vector<AttentionKind> kinds) {
    if (kinds.empty())
        kinds = modelKinds_;
    if (kinds == kinds_)
        return;
    kinds_ = std::move(kinds);
    const auto current = state_->kind();
    {
        const QSignalBlocker block(kind_);
        kind_->clear();
        for (auto k : kinds_)
            kind_->addItem(AttentionText::kindLabel(k), static_cast<int>(k));
        const int idx = kind_->findData(static_cast<int>(current));
        kind_->setCurrentIndex(idx < 0 ? 0 : idx);
    }
    Q_EMIT kindsChanged(kinds_);
    if (kind_->count() > 0)
        state_->setKind(static_cast<AttentionKind>(kind_->currentData().toInt()));
}

void AttentionPage::fitGrid(const ShownAttention& shown) {
    // One layer of one head (a recurrent decoder's attention, a pooling row) leaves the grid nothing to
    // choose between: the detail heatmap takes its room.
    const auto* b = shown.block();
    grid_->setVisible(b == nullptr || b->layers != 1 || b->heads != 1);
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
    // The kinds first, so the views draw the new weights once, in the kind they will keep.
    std::vector<AttentionKind> has;
    for (auto k : core::kAttentionKinds)
        if (snap->has(k))
            has.push_back(k);
    offerKinds(std::move(has));
    state_->setSnapshot(snap);
    classifier_->setSnapshot(snap);
    showDetail();
    srcStrip_->setTokens(snap->srcTokens);
    srcStrip_->setEmptyText(snap->srcTokens.empty() && !snap->tgtTokens.empty()
                                ? tr("(a decoder-only model has no source: the prompt is the target)")
                                : tr("(type a sentence above)"));
    tgtStrip_->setTokens(snap->tgtTokens);
    tgtStrip_->setCurrent(static_cast<int>(snap->tgtTokens.size()) - 1);
    // The side the text went to carries the cut; either side may run past max_len.
    const bool enc = !snap->srcTokens.empty();
    const auto pastFrom = [&](const std::vector<core::Token>& side) {
        return snap->maxLen > 0 && static_cast<int>(side.size()) > snap->maxLen ? snap->maxLen : -1;
    };
    const int notRead = snap->textTokens - snap->readTokens;
    srcStrip_->setLimits(pastFrom(snap->srcTokens), enc ? notRead : 0);
    tgtStrip_->setLimits(pastFrom(snap->tgtTokens), enc ? 0 : notRead);
    tgtStrip_->setForced(snap->forced);
    banner_->showFor(*snap, r->model && r->model->config().canPassMaxLen(), r->pastMaxLen);
    fitStrips();
    const QRect newest = tgtStrip_->chipRect(tgtStrip_->count() - 1);
    tgtScroll_->ensureVisible(newest.center().x(), newest.center().y(), 0, newest.height());
    updateCurrentQuery();
    updateStrips();
    candidates_->setResult(r);
    decode_->setState(r->step, r->finished, true, r->decodedText);
    grid_->setAblation(r->ablation);
    const auto off = static_cast<int>(r->ablation.size());
    ablated_->setText(tr("%n head(s) off", nullptr, off));
    ablated_->setToolTip(tr("Switched off (their output zeroed before W_O): %1. Ctrl+click a tile to switch "
                            "one back on; Ctrl+Shift+H switches them all on")
                             .arg(QString::fromStdString(r->ablation.text())));
    ablated_->setVisible(off > 0);
    // Value norms exist only where there are values and an output projection: a Transformer.
    valueWeighted_->setEnabled(!snap->encoderNorms.empty() || !snap->decoderNorms.empty());
}

void AttentionPage::clear() {
    result_.reset();
    state_->setSnapshot(nullptr);
    classifier_->setSnapshot(nullptr);
    showDetail();
    offerKinds(modelKinds_);
    srcStrip_->setTokens({});
    tgtStrip_->setTokens({});
    srcStrip_->setLimits(-1, 0);
    tgtStrip_->setLimits(-1, 0);
    tgtStrip_->setForced({});
    banner_->hide();
    fitStrips();
    candidates_->setResult(nullptr);
    decode_->setState(0, false, false, QString());
}

void AttentionPage::showDetail() {
    // A classifier answers once and decodes nothing: its answer takes the detail pane, and the decoding
    // controls, the target and the next-token chart step aside. An encoder-only model (BERT) decodes nothing
    // either: the decoding controls and the target step aside, and the chart shows its masked-LM head's
    // candidates for the first [MASK], when the text has one.
    const bool classifier = result_ && !result_->snapshot->pooled.empty();
    const bool reads = result_ && !result_->snapshot->decodes;
    detail_->setCurrentWidget(classifier             ? static_cast<QWidget*>(classifier_)
                              : state_->linesShown() ? static_cast<QWidget*>(lines_)
                                                     : heatmap_);
    for (QWidget* w : {static_cast<QWidget*>(linesCheck_), static_cast<QWidget*>(perHead_),
                       static_cast<QWidget*>(logScale_), static_cast<QWidget*>(valueWeighted_)})
        w->setVisible(!classifier);
    for (QWidget* w : {static_cast<QWidget*>(decode_), static_cast<QWidget*>(tgtScroll_)})
        w->setVisible(!reads);
    candidates_->setVisible(!classifier && (!reads || result_->snapshot->maskRow >= 0));
}

void AttentionPage::updateCurrentQuery() {
    // The row of the token being fed now, whose output is the next token: kinds whose rows are the target;
    // for an encoder-only model, the [MASK] whose candidates the chart shows.
    int q = -1;
    if (result_ && state_->shown().rowsAreTarget())
        q = static_cast<int>(result_->snapshot->tgtTokens.size()) - 1;
    else if (result_ && !result_->snapshot->decodes)
        q = result_->snapshot->maskRow;
    grid_->setHighlightedQuery(q);
    heatmap_->setCurrentQuery(q);
}

void AttentionPage::updateStrips() {
    srcStrip_->setMarked(state_->markedOnStrip(true));
    tgtStrip_->setMarked(state_->markedOnStrip(false));
}

} // namespace ui
