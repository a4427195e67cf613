#include "ui/inside/InsideView.h"

#include "ui/base/AttentionText.h"
#include "ui/base/TokenText.h"
#include "ui/base/ViewState.h"
#include "ui/inside/InsideStages.h"
#include "ui/inside/InsideText.h"
#include "ui/inside/SamplingChart.h"
#include "ui/run/AnalysisController.h"
#include "ui/views/MatrixChart.h"

#include <QComboBox>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalBlocker>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace ui {

using core::AttentionKind;

namespace {

core::Matrix rowMatrix(const std::vector<std::vector<float>>& rows) {
    core::Matrix m(static_cast<int>(rows.size()), rows.empty() ? 0 : static_cast<int>(rows.front().size()));
    for (int r = 0; r < m.rows; ++r)
        std::copy(rows[std::size_t(r)].begin(), rows[std::size_t(r)].end(),
                  m.data.begin() + static_cast<std::ptrdiff_t>(r) * m.cols);
    return m;
}

int argmaxAbs(const float* v, int n) {
    int best = 0;
    for (int i = 1; i < n; ++i)
        if (std::abs(v[i]) > std::abs(v[best]))
            best = i;
    return best;
}

} // namespace

InsideView::InsideView(ViewState* state, QWidget* parent) : QWidget(parent), state_(state) {
    setObjectName(QStringLiteral("insideView"));
    build();
    connect(state_, &ViewState::shownChanged, this, [this] { maybeRequest(); });
    connect(state_, &ViewState::markedTokenChanged, this, [this] {
        fillRowCombo();
        maybeRequest();
    });
}

void InsideView::build() {
    auto* col = new QVBoxLayout(this);
    auto* top = new QHBoxLayout;
    heading_ = new QLabel(tr("Type a sentence to open the computation behind its attention."), this);
    heading_->setObjectName(QStringLiteral("insideHeading"));
    heading_->setTextFormat(Qt::PlainText);
    heading_->setWordWrap(true);
    heading_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred); // a long token must not widen it
    rowCombo_ = new QComboBox(this);
    rowCombo_->setObjectName(QStringLiteral("insideRowCombo"));
    rowCombo_->setToolTip(tr("The query row to open: the token whose attention is computed. By default the "
                             "current decode step; clicking a token in the Attention page's strips picks "
                             "one too."));
    top->addWidget(heading_, 1);
    top->addWidget(new QLabel(tr("Row"), this));
    top->addWidget(rowCombo_);
    col->addLayout(top);
    status_ = new QLabel(this);
    status_->setObjectName(QStringLiteral("insideStatus"));
    status_->setStyleSheet(QStringLiteral("color: #b03a2e;"));
    status_->setVisible(false);
    col->addWidget(status_);

    scroll_ = new QScrollArea(this);
    scroll_->setFrameShape(QFrame::NoFrame);
    stages_ = new InsideStages(scroll_);
    auto* body = stages_;
    const auto stage = [&](const QString& title, const QString& tip, std::initializer_list<QWidget*> charts,
                           int n) {
        auto* box = new QGroupBox(title, body);
        box->setToolTip(tip);
        auto* v = new QVBoxLayout(box);
        auto* h = new QHBoxLayout;
        for (auto* c : charts)
            h->addWidget(c, 1);
        v->addLayout(h, 1);
        if (n > 0) {
            stageBoxes_[std::size_t(n - 1)] = box;
            auto* line = new QLabel(box);
            line->setObjectName(QStringLiteral("insideLine%1").arg(n));
            line->setWordWrap(true);
            line->setTextFormat(Qt::PlainText);
            line->setTextInteractionFlags(Qt::TextSelectableByMouse);
            line->setMinimumHeight(line->fontMetrics().height() * 2);
            v->addWidget(line);
            lines_[std::size_t(n - 1)] = line;
        }
        stages_->addStage(box);
    };
    x_ = new MatrixChart(tr("x: query side after the norm"), body);
    memory_ = new MatrixChart(tr("memory: encoder output"), body);
    q_ = new MatrixChart(tr("Q = x W_Q + b_Q"), body);
    k_ = new MatrixChart(tr("K = x W_K + b_K"), body);
    v_ = new MatrixChart(tr("V = x W_V + b_V"), body);
    products_ = new MatrixChart(tr("q_i ⊙ k_j"), body);
    scores_ = new MatrixChart(tr("scores → weights"), body);
    scores_->setCellNumbers(true);
    weighted_ = new MatrixChart(tr("w_j · v_j"), body);
    z_ = new MatrixChart(tr("z_i = Σ_j w_j v_j"), body);
    vectors_ = new MatrixChart(tr("heads → W_O → residual"), body);
    sampling_ = new SamplingChart(body);
    const std::pair<MatrixChart*, const char*> names[] = {
        {x_, "x"}, {memory_, "memory"},     {q_, "q"},           {k_, "k"},
        {v_, "v"}, {products_, "products"}, {scores_, "scores"}, {weighted_, "weighted"},
        {z_, "z"}, {vectors_, "vectors"}};
    for (const auto& [c, n] : names)
        c->setObjectName(QStringLiteral("inside_%1").arg(QLatin1String(n)));
    // Short titles: a group box is at least as wide as its title, and two stages side by side must fit a
    // projector; the whole sentence is each box's tooltip.
    stage(tr("1 · The layer's input x"), tr("The layer's input x: what the projections multiply"),
          {x_, memory_}, 1);
    stage(tr("2 · Q, K, V of this head"),
          tr("x times this head's slice of W_Q, W_K, W_V, plus biases where the model has them"),
          {q_, k_, v_}, 2);
    stage(tr("3 · The query against every key"), tr("q_i ⊙ k_j, one column per dimension"), {products_}, 3);
    stage(tr("4 · Scores, ÷ √d_k, mask, softmax"),
          tr("Scores q_i·k_j, ÷ √d_k, the mask (−∞ grey), softmax → the weights"), {scores_}, 4);
    stage(tr("5 · Weighted values, W_O, residual"),
          tr("The weighted sum of the values, then all heads through W_O into the residual"),
          {weighted_, z_, vectors_}, 5);
    stage(tr("The next token"), tr("The next token: temperature, top-k, top-p, the draw"), {sampling_}, 0);
    samplingBox_ = sampling_->parentWidget();
    col->addWidget(scroll_, 1);

    // Hovering a key (a row of K, V, the products, the scores or the weighted values) or a dimension of the
    // head marks it everywhere and rewrites the lines.
    for (auto* c : {k_, v_, products_, weighted_})
        connect(c, &MatrixChart::hovered, this, [this](int r, int d) { hover(r, d); });
    connect(q_, &MatrixChart::hovered, this, [this](int, int d) { hover(-1, d); });
    connect(z_, &MatrixChart::hovered, this, [this](int, int d) { hover(-1, d); });
    connect(scores_, &MatrixChart::hovered, this, [this](int r, int) { hover(r, -1); });
    connect(memory_, &MatrixChart::hovered, this, [this](int r, int) { hover(r, -1); });
    connect(vectors_, &MatrixChart::hovered, this, [this](int, int c) {
        if (c >= 0) {
            channel_ = c;
            updateHighlights();
            updateLines();
        }
    });
    connect(x_, &MatrixChart::hovered, this, [this](int, int c) {
        if (c >= 0) {
            channel_ = c;
            updateLines();
        }
    });
    connect(rowCombo_, qOverload<int>(&QComboBox::activated), this,
            [this](int i) { state_->setMarkedToken(Qt::Horizontal, i); });
}

void InsideView::setResult(const RunResultPtr& result) {
    result_ = result;
    if (!result_) {
        inside_.reset();
        drawnInputs_.reset();
        heading_->setText(tr("Type a sentence to open the computation behind its attention."));
    } else if (!inside_) {
        // A first result: the row is asked for (when the page is in sight); the heading says so until it
        // comes.
        heading_->setText(tr("Opening the computation behind the selected row\u2026"));
    }
    fillRowCombo();
    maybeRequest();
}

core::InsideQuery InsideView::wanted() const {
    core::InsideQuery q;
    q.kind = state_->kind();
    q.layer = std::max(0, state_->layer());
    q.head = std::max(0, state_->head()); // the mean of the heads has no Q, K, V of its own: head 0
    int rows = 0, fallback = -1;
    if (result_) {
        const auto& snap = *result_->snapshot;
        rows = static_cast<int>(q.kind == AttentionKind::Encoder ? snap.srcTokens.size()
                                                                 : snap.tgtTokens.size());
        // An encoder-only model's row of interest is its [MASK], whose output the head reads.
        fallback = !snap.decodes && snap.maskRow >= 0 && snap.maskRow < rows ? snap.maskRow : rows - 1;
    }
    const int marked = state_->markOrientation() == Qt::Horizontal ? state_->markIndex() : -1;
    q.row = marked >= 0 && marked < rows ? marked : fallback;
    return q;
}

void InsideView::fillRowCombo() {
    const QSignalBlocker block(rowCombo_);
    rowCombo_->clear();
    if (!result_)
        return;
    const auto q = wanted();
    const auto& snap = *result_->snapshot;
    const auto& tokens = q.kind == AttentionKind::Encoder ? snap.srcTokens : snap.tgtTokens;
    for (int i = 0; i < static_cast<int>(tokens.size()); ++i) {
        QString label =
            QStringLiteral("%1  %2").arg(i).arg(elided(tokenDisplayText(tokens[std::size_t(i)]), 16));
        if (q.kind != AttentionKind::Encoder && i + 1 == static_cast<int>(tokens.size()))
            label += tr("  (current step)");
        rowCombo_->addItem(label);
    }
    rowCombo_->setCurrentIndex(q.row);
}

void InsideView::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    maybeRequest();
}

void InsideView::maybeRequest() {
    if (!result_ || !isVisible())
        return; // asked for when the page is shown
    const auto q = wanted();
    const auto& snap = *result_->snapshot;
    if (!snap.has(q.kind) || q.row < 0)
        return;
    fillRowCombo();
    // Asked once per state shown and row: a result from history (Back) or another branch is another state.
    if (requestedFor_ == result_ && lastRequest_.kind == q.kind && lastRequest_.layer == q.layer &&
        lastRequest_.head == q.head && lastRequest_.row == q.row)
        return;
    requestedFor_ = result_;
    lastRequest_ = q;
    Q_EMIT requested(q);
}

void InsideView::attach(AnalysisController* c) {
    connect(c, &AnalysisController::resultChanged, this, &InsideView::setResult);
    connect(c, &AnalysisController::cleared, this, [this] { setResult(nullptr); });
    connect(c, &AnalysisController::analysing, this, [this](qulonglong tokens, int done, int layers) {
        if (!result_) // a first text: the heading says what the page waits for
            heading_->setText(AttentionText::analysingText(tokens, done, layers));
    });
    connect(this, &InsideView::requested, c, &AnalysisController::requestInside);
    connect(c, &AnalysisController::insideReady, this, &InsideView::setInside);
    connect(c, &AnalysisController::insideFailed, this, &InsideView::setFailed);
    connect(c, &AnalysisController::samplingChanged, this, &InsideView::refresh);
}

void InsideView::refresh() {
    requestedFor_.reset();
    maybeRequest();
}

bool InsideView::isOfShownState(const InsideResult& r) const {
    if (!result_ || r.run != result_->run)
        return false;
    const auto sameIds = [](const std::vector<core::Token>& tokens, const std::vector<int64_t>& ids) {
        return std::equal(tokens.begin(), tokens.end(), ids.begin(), ids.end(),
                          [](const core::Token& t, int64_t id) { return t.id == id; });
    };
    return sameIds(result_->snapshot->srcTokens, r.source) && sameIds(result_->snapshot->tgtTokens, r.target);
}

void InsideView::setInside(const InsideResultPtr& r) {
    const auto q = wanted();
    if (!isOfShownState(*r) || r->row.query.kind != q.kind || r->row.query.layer != q.layer ||
        r->row.query.head != q.head || r->row.query.row != q.row)
        return; // a newer request is on its way
    const bool sameRow = inside_ && inside_->row.query.kind == q.kind && inside_->row.query.row == q.row;
    inside_ = r;
    status_->setVisible(false);
    if (!sameRow || key_ >= r->row.k.rows || dim_ >= r->row.headSize)
        pickTellingCells();
    draw();
}

void InsideView::pickTellingCells() {
    // The key with the most weight and its most telling dimension, until the mouse picks others.
    const auto& row = inside_->row;
    key_ = static_cast<int>(std::max_element(row.weights.begin(), row.weights.end()) - row.weights.begin());
    dim_ = argmaxAbs(row.products.row(key_), row.products.cols);
    channel_ = argmaxAbs(row.attnOut.data(), static_cast<int>(row.attnOut.size()));
}

void InsideView::setFailed(const QString& message) {
    status_->setText(tr("Cannot open this row: %1").arg(message));
    status_->setVisible(true);
}

void InsideView::draw() {
    const auto& r = inside_->row;
    const int hs = r.headSize;
    // A recurrent row's x and q hold only its own query.
    const auto qLabels = r.recurrent ? QStringList{InsideText::quoted(r.queryTokens, r.query.row)}
                                     : tokenLabels(r.queryTokens, -1, 12),
               kLabels = tokenLabels(r.keyTokens, -1, 12);
    heading_->setText(heading());
    // x and the memory change with the step, the kind and the layer, not with the row or the head: at
    // T = 1,024 on GPT-2's shape x alone is 786,432 cells.
    if (!drawnInputs_ || !isOfShownState(*drawnInputs_) || drawnInputs_->row.query.kind != r.query.kind ||
        drawnInputs_->row.query.layer != r.query.layer || drawnInputs_->source != inside_->source ||
        drawnInputs_->target != inside_->target) {
        drawnInputs_ = inside_;
        x_->setVisible(!r.x.empty()); // a classifier's query is learned: no input row
        if (!r.x.empty())
            x_->setMatrix(r.x, qLabels);
        memory_->setVisible(!r.memory.empty());
        if (!r.memory.empty())
            memory_->setMatrix(r.memory, kLabels);
    }
    q_->setMatrix(r.q, qLabels);
    k_->setMatrix(r.k, kLabels);
    v_->setMatrix(r.v, kLabels);
    products_->setMatrix(r.products, kLabels);
    // Stage 4 reads like a table beside the products: one row per key, one column per step of the way.
    core::Matrix s(r.k.rows, 4);
    for (int j = 0; j < s.rows; ++j) {
        const auto jj = std::size_t(j);
        const float masked = r.visible[jj] ? r.scaled[jj] : std::nanf("");
        const float row[] = {r.scores[jj], r.scaled[jj], masked, r.weights[jj]};
        std::copy(row, row + 4, s.data.begin() + static_cast<std::ptrdiff_t>(j) * 4);
    }
    scores_->setMatrix(
        s, kLabels,
        r.recurrent ? QStringList{tr("score"), tr("(no ÷√d)"), tr("(no mask)"), tr("softmax")}
                    : QStringList{tr("q·k"), QStringLiteral("÷√%1").arg(hs), tr("+mask"), tr("softmax")},
        MatrixChart::Colours::Diverging, MatrixChart::Scaling::PerColumn);
    weighted_->setMatrix(r.weighted, kLabels);
    z_->setMatrix(rowMatrix({r.z}), {QStringLiteral("z")});
    // A recurrent model hands z (the context) to its GRU or its classes: no W_O, no residual.
    vectors_->setVisible(!r.recurrent);
    if (!r.recurrent)
        vectors_->setMatrix(
            rowMatrix({r.concat, r.attnOut, r.residual, r.output}),
            {tr("concat"), tr("attn_out"), tr("residual"), r.postNorm ? tr("norm(sum)") : tr("output")});
    // Post-norm (BERT, Marian): the projections read the residual rows themselves; the norm follows the sum.
    x_->setTitle(r.postNorm ? tr("x: the residual rows (the norm comes after the sum)")
                            : tr("x: query side after the norm"));
    const QString b = r.qkvBias ? QStringLiteral(" + b_%1") : QString();
    q_->setTitle(r.rotary ? tr("Q (rotated by position)") : tr("Q = x W_Q") + b.arg(QLatin1Char('Q')));
    const bool cached = r.query.kind != AttentionKind::Encoder; // the encoder's are projected here
    k_->setTitle(
        cached ? (r.rotary ? tr("K (rotated; the decoder's cache)") : tr("K (the decoder's cache)"))
               : (r.rotary ? tr("K (rotated by position)") : tr("K = x W_K") + b.arg(QLatin1Char('K'))));
    v_->setTitle(r.query.kind == AttentionKind::Encoder ? tr("V = x W_V") + b.arg(QLatin1Char('V'))
                                                        : tr("V (the decoder's cache)"));
    if (r.grouped()) { // which of the shared keys and values these are says more than "cached"
        k_->setTitle(tr("K of key/value head %1").arg(r.kvHead()));
        v_->setTitle(tr("V of key/value head %1").arg(r.kvHead()));
    }
    if (r.recurrent) { // the seed's recurrent models: no projections of their own beyond the score's
        q_->setTitle(r.x.empty() ? tr("query w (learned)") : tr("query W_h h + b"));
        k_->setTitle(r.x.empty() ? tr("keys: BiLSTM out") : tr("keys W_e s_j"));
        v_->setTitle(r.x.empty() ? tr("values: BiLSTM out") : tr("values s_j"));
    }
    // An encoder-only model decodes nothing: it has no next token to draw.
    samplingBox_->setVisible(inside_->decodes);
    if (inside_->decodes)
        sampling_->setPipeline(inside_->pipeline);
    updateHighlights();
    updateLines();
}

QString InsideView::heading() const {
    return inside_ ? InsideText::heading(*inside_, state_->head() < 0) : heading_->text();
}

void InsideView::hover(int key, int dim) {
    if (!inside_)
        return;
    if (key >= 0 && key < inside_->row.k.rows)
        key_ = key;
    if (dim >= 0 && dim < inside_->row.headSize)
        dim_ = dim;
    updateHighlights();
    updateLines();
}

void InsideView::updateHighlights() {
    const int i = inside_->row.queryIndex();
    x_->setHighlight(i, channel_);
    memory_->setHighlight(key_, -1);
    q_->setHighlight(i, dim_);
    for (auto* c : {k_, v_, products_, weighted_})
        c->setHighlight(key_, dim_);
    scores_->setHighlight(key_, -1);
    z_->setHighlight(-1, dim_);
    vectors_->setHighlight(-1, channel_);
}

void InsideView::updateLines() {
    const auto text = InsideText::lines(inside_->row, key_, dim_, channel_);
    for (std::size_t n = 0; n < text.size(); ++n)
        lines_[n]->setText(text[n]);
}

void InsideView::setStage(int stage) {
    stage_ = stage >= 1 && stage <= 5 ? stage : 0;
    for (std::size_t i = 0; i < stageBoxes_.size(); ++i)
        stageBoxes_[i]->setStyleSheet(
            int(i) + 1 == stage_
                ? QStringLiteral("QGroupBox { border: 3px solid #e67e22; border-radius: 4px; "
                                 "margin-top: 1.2em; } QGroupBox::title { color: #b9570b; }")
                : QString());
    if (stage_ > 0 && inside_) {
        // A step's caption reads the telling cells: a key hovered before the step must not stay in the lines.
        pickTellingCells();
        updateHighlights();
        updateLines();
    }
    if (stage_ > 0) {
        // Down to the stage, its top at the page's top so as much of it as fits is in sight; never sideways:
        // the page reads from its left edge, and the stages reflow to one column where two would not fit.
        stages_->layout()->activate();
        scroll_->verticalScrollBar()->setValue(stageBoxes_[std::size_t(stage_ - 1)]->y());
        scroll_->horizontalScrollBar()->setValue(0);
    }
}

QString InsideView::formulaLine(int stage) const {
    return stage >= 1 && stage <= 5 ? lines_[std::size_t(stage - 1)]->text() : QString();
}

MatrixChart* InsideView::chart(const char* name) const {
    return findChild<MatrixChart*>(QStringLiteral("inside_%1").arg(QLatin1String(name)));
}

} // namespace ui
