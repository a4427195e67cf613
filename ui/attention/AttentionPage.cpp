#include "ui/attention/AttentionPage.h"

#include "core/model/Model.h"
#include "ui/attention/AttentionControls.h"
#include "ui/attention/CandidatesChart.h"
#include "ui/attention/ClassifierView.h"
#include "ui/attention/DecodePanel.h"
#include "ui/attention/LengthBanner.h"
#include "ui/attention/TokenStrip.h"
#include "ui/base/AttentionText.h"
#include "ui/base/PresentationMode.h"
#include "ui/base/QCustomPlotInclude.h"
#include "ui/base/ViewState.h"
#include "ui/run/AnalysisController.h"
#include "ui/views/AttentionGrid.h"
#include "ui/views/HeatmapView.h"
#include "ui/views/LessonSpotlight.h"
#include "ui/views/LinesView.h"

#include <QFontMetrics>
#include <QScrollArea>
#include <QScrollBar>

#include <QSplitter>
#include <QStackedWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <numeric>
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
    controls_ = new AttentionControls(state_, this);
    col->addWidget(controls_);

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
    tileSpot_ = new LessonSpotlight(grid_);
    cellSpot_ = new LessonSpotlight(heatmap_->plot());
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
    // The side's name moves with the lines in sight (TokenStrip::titleRect): a scroll repaints it whole
    // rather than moving the old pixels along.
    QObject::connect(scroll->verticalScrollBar(), &QScrollBar::valueChanged, strip,
                     [strip] { strip->update(); });
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
    // Views → view state.
    connect(grid_, &AttentionGrid::tileClicked, state_, &ViewState::setSelection);
    connect(grid_, &AttentionGrid::tileToggled, state_, [this](int layer, int head) {
        state_->toggleHeadOff({state_->kind(), layer, head});
    });
    connect(decode_, &DecodePanel::samplingChanged, candidates_, &CandidatesChart::setSampling);
    connect(grid_, &AttentionGrid::navigate, state_, &ViewState::navigate);
    connect(heatmap_, &HeatmapView::navigate, state_, &ViewState::navigate);
    connect(heatmap_, &HeatmapView::busyChanged, this, &AttentionPage::busyChanged);
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
    connect(state_, &ViewState::linesShownChanged, this, &AttentionPage::showDetail);
    connect(state_, &ViewState::colorMapChanged, classifier_, &ClassifierView::setColorMap);
    connect(classifier_, &ClassifierView::tokenClicked, this,
            [this](int i) { state_->markFromStrip(true, i, false); });
    grid_->setShown(state_->shown());
    heatmap_->setShown(state_->shown());
    // View state → the page's own controls and marks.
    connect(state_, &ViewState::shownChanged, this, &AttentionPage::fitGrid);
    connect(state_, &ViewState::kindChanged, this, [this] {
        updateCurrentQuery();
        updateStrips();
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
    // A decoder-only model has no source: no row saying so, the prompt is the target.
    const bool source =
        std::any_of(kinds.begin(), kinds.end(), [](AttentionKind k) { return k != AttentionKind::Decoder; });
    srcScroll_->setVisible(source || kinds.empty());
    offerKinds(kinds);
}

void AttentionPage::offerKinds(std::vector<AttentionKind> kinds) {
    if (kinds.empty())
        kinds = modelKinds_;
    if (kinds == kinds_)
        return;
    kinds_ = std::move(kinds);
    Q_EMIT kindsChanged(kinds_);
    controls_->offer(kinds_);
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
    controls_->selectKind(kind);
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
    tgtStrip_->setCommitment(snap->commitment, snap->streamPoints);
    banner_->showFor(*snap, r->model && r->model->config().canPassMaxLen(), r->pastMaxLen);
    fitStrips();
    const QRect newest = tgtStrip_->chipRect(tgtStrip_->count() - 1);
    tgtScroll_->ensureVisible(newest.center().x(), newest.center().y(), 0, newest.height());
    updateCurrentQuery();
    updateStrips();
    candidates_->setResult(r);
    decode_->setState(r->step,
                      AttentionText::endingText(r->ending, static_cast<int64_t>(snap->tgtTokens.size())),
                      true, r->decodedText);
    // Value norms exist only where there are values and an output projection: a Transformer.
    controls_->setValueWeightingAvailable(!snap->encoderNorms.empty() || !snap->decoderNorms.empty());
}

void AttentionPage::clear() {
    result_.reset();
    grid_->setNothingYetText(QString());
    heatmap_->setNothingYetText(QString());
    state_->setSnapshot(nullptr);
    classifier_->setSnapshot(nullptr);
    showDetail();
    offerKinds(modelKinds_);
    srcStrip_->setTokens({});
    tgtStrip_->setTokens({});
    srcStrip_->setLimits(-1, 0);
    tgtStrip_->setLimits(-1, 0);
    tgtStrip_->setForced({});
    tgtStrip_->setCommitment({}, {});
    banner_->hide();
    fitStrips();
    candidates_->setResult(nullptr);
    decode_->setState(0, QString(), false, QString());
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
    controls_->setForClassifier(classifier);
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

void AttentionPage::attach(AnalysisController* c) {
    connect(c, &AnalysisController::resultChanged, this, &AttentionPage::showResult);
    connect(c, &AnalysisController::cleared, this, &AttentionPage::clear);
    connect(c, &AnalysisController::analysing, this, [this](qulonglong tokens, int done, int layers) {
        const auto text = AttentionText::analysingText(tokens, done, layers);
        decode_->setAnalysing(text);
        grid_->setNothingYetText(text); // said where the tiles and the cells will be, while there are none
        heatmap_->setNothingYetText(text);
    });
    connect(decode_->stepAction(), &QAction::triggered, c, &AnalysisController::step);
    connect(decode_->backAction(), &QAction::triggered, c, &AnalysisController::back);
    connect(decode_->runAction(), &QAction::triggered, c, &AnalysisController::runToEnd);
    connect(decode_->resetAction(), &QAction::triggered, c, &AnalysisController::reset);
    connect(decode_, &DecodePanel::samplingChanged, c, &AnalysisController::setSampling);
    c->setSampling(decode_->sampling());
    connect(banner_, &LengthBanner::pastMaxLenRequested, c, &AnalysisController::setPastMaxLen);
    connect(candidates_, &CandidatesChart::forceRequested, c, [c](qint64 id) { c->force(id); });
}

QList<QAction*> AttentionPage::decodeActions() const {
    return {decode_->stepAction(), decode_->backAction(), decode_->runAction(), decode_->resetAction()};
}

core::SamplingSettings AttentionPage::sampling() const {
    return decode_->sampling();
}

void AttentionPage::setSampling(const core::SamplingSettings& s) {
    decode_->setSampling(s);
}

void AttentionPage::expectNewRun() {
    decode_->expectNewRun();
}

void AttentionPage::zoomBy(double factor) {
    heatmap_->zoomBy(factor);
}

void AttentionPage::resetZoom() {
    heatmap_->resetZoom();
}

QRectF AttentionPage::zoom() const {
    return heatmap_->isZoomed() ? heatmap_->visibleCells() : QRectF();
}

void AttentionPage::setZoom(const QRectF& cells) {
    if (cells.isEmpty())
        heatmap_->resetZoom();
    else
        heatmap_->setVisibleCells(cells);
}

void AttentionPage::giveRoomToDetail() {
    // A step about a cell needs the cells, their key labels and the candidates they lead to: where the
    // detail has less than half the width or the chart no room for its bars (presenting, the lesson dock
    // open), the grid gives way, down to its least.
    // Only on the page in sight: hidden (a step on the Inside tab rings a cell too), its panes read as not
    // shown and would be given no width; the step that shows the page rings the cell again.
    if (!isVisible())
        return;
    const auto sizes = splitter_->sizes();
    const int total = std::accumulate(sizes.begin(), sizes.end(), 0);
    if (sizes.size() != 3 || total <= 0)
        return;
    // Half for the detail; the chart room for its tokens, numbers and some bar (30 characters of its font,
    // at most a quarter); the grid the rest.
    const bool chartShown = !candidates_->isHidden();
    const int wantChart =
        chartShown
            ? std::min(QFontMetrics(candidates_->plot()->yAxis->tickLabelFont()).averageCharWidth() * 30,
                       total / 4)
            : 0;
    if (sizes[1] * 2 >= total && sizes[2] >= wantChart - 8)
        return;
    const int detail = std::max(total / 2, sizes[1] * 2 >= total ? sizes[1] - (wantChart - sizes[2]) : 0);
    const int grid =
        !grid_->isHidden() ? std::max(grid_->minimumSizeHint().width(), total - detail - wantChart) : 0;
    const int chart = chartShown ? std::max(candidates_->minimumWidth(), total - detail - grid) : 0;
    if (total - grid - chart <= sizes[1])
        return; // the grid and the chart at their least leave the detail no more than it has
    splitter_->setSizes({grid, total - grid - chart, chart});
}

void AttentionPage::spotlightTile(int layer, int head) {
    if (layer < 0)
        return tileSpot_->clear();
    tileSpot_->show([this, layer, head] { return grid_->tileRect(layer, head); });
}

void AttentionPage::spotlightCell(int row, int column) {
    if (row < 0)
        return cellSpot_->clear();
    giveRoomToDetail();
    auto* plot = heatmap_->plot();
    cellSpot_->show([plot, row, column] {
        const double x0 = plot->xAxis->coordToPixel(column - 0.5);
        const double x1 = plot->xAxis->coordToPixel(column + 0.5);
        const double y0 = plot->yAxis->coordToPixel(row - 0.5);
        const double y1 = plot->yAxis->coordToPixel(row + 0.5);
        return QRectF(QPointF(x0, y0), QPointF(x1, y1)).normalized().toAlignedRect();
    });
}

void AttentionPage::joinPresentation(PresentationMode* mode) {
    mode->addChrome(controls_);
    // The grid of every head gets about half the width: its tiles are what a room reads from afar.
    mode->setPaneWeights(splitter_, {48, 31, 21});
}

QByteArray AttentionPage::paneLayout() const {
    return splitter_->saveState();
}

void AttentionPage::restorePaneLayout(const QByteArray& layout) {
    splitter_->restoreState(layout);
}

bool AttentionPage::busy() const {
    return heatmap_->busy();
}

QCustomPlot* AttentionPage::candidatesPlot() const {
    return candidates_->plot();
}

} // namespace ui
