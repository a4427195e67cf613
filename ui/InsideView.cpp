#include "ui/InsideView.h"

#include "ui/AttentionText.h"
#include "ui/MatrixChart.h"
#include "ui/SamplingChart.h"
#include "ui/TokenText.h"
#include "ui/ViewState.h"

#include <QComboBox>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace ui {

using core::AttentionKind;

namespace {

QStringList labels(const std::vector<core::Token>& tokens) {
    QStringList out;
    for (const auto& t : tokens)
        out << elided(tokenDisplayText(t), 12);
    return out;
}

QString quoted(const std::vector<core::Token>& tokens, int i) {
    if (i < 0 || i >= static_cast<int>(tokens.size()))
        return QStringLiteral("?");
    return QStringLiteral("“%1”").arg(tokenDisplayText(tokens[std::size_t(i)]));
}

QString num(double v) {
    return std::isfinite(v) ? QString::number(v, 'g', 4) : QStringLiteral("−∞");
}

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

    auto* scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    auto* body = new QWidget(scroll);
    auto* grid = new QGridLayout(body);
    const auto stage = [&](int row, int column, const QString& title, std::initializer_list<QWidget*> charts,
                           int n) {
        auto* box = new QGroupBox(title, body);
        auto* v = new QVBoxLayout(box);
        auto* h = new QHBoxLayout;
        for (auto* c : charts)
            h->addWidget(c, 1);
        v->addLayout(h, 1);
        if (n > 0) {
            auto* line = new QLabel(box);
            line->setObjectName(QStringLiteral("insideLine%1").arg(n));
            line->setWordWrap(true);
            line->setTextFormat(Qt::PlainText);
            line->setTextInteractionFlags(Qt::TextSelectableByMouse);
            line->setMinimumHeight(line->fontMetrics().height() * 2);
            v->addWidget(line);
            lines_[std::size_t(n - 1)] = line;
        }
        grid->addWidget(box, row, column);
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
    stage(0, 0, tr("1 · The layer's input x (after its norm: what the projections multiply)"), {x_, memory_},
          1);
    stage(0, 1, tr("2 · Q, K, V of this head (x times its slice of W_Q, W_K, W_V, biases included)"),
          {q_, k_, v_}, 2);
    stage(1, 0, tr("3 · The query against every key: q_i ⊙ k_j, one column per dimension"), {products_}, 3);
    stage(1, 1, tr("4 · Scores q_i·k_j, ÷ √d_k, the mask (−∞ grey), softmax → the weights"), {scores_}, 4);
    stage(2, 0, tr("5 · The weighted sum of the values, then all heads through W_O into the residual"),
          {weighted_, z_, vectors_}, 5);
    stage(2, 1, tr("The next token: temperature, top-k, top-p, the draw"), {sampling_}, 0);
    grid->setColumnStretch(0, 1);
    grid->setColumnStretch(1, 1);
    for (int r = 0; r < 3; ++r)
        grid->setRowMinimumHeight(r, 270);
    scroll->setWidget(body);
    col->addWidget(scroll, 1);

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
        drawnInputs_ = {};
        heading_->setText(tr("Type a sentence to open the computation behind its attention."));
    }
    fillRowCombo();
    maybeRequest();
}

core::InsideQuery InsideView::wanted() const {
    core::InsideQuery q;
    q.kind = state_->kind();
    q.layer = std::max(0, state_->layer());
    q.head = std::max(0, state_->head()); // the mean of the heads has no Q, K, V of its own: head 0
    int rows = 0;
    if (result_) {
        const auto& snap = *result_->snapshot;
        rows = static_cast<int>(q.kind == AttentionKind::Encoder ? snap.srcTokens.size()
                                                                 : snap.tgtTokens.size());
    }
    const int marked = state_->markOrientation() == Qt::Horizontal ? state_->markIndex() : -1;
    q.row = marked >= 0 && marked < rows ? marked : rows - 1;
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
    if (requestedOnce_ && lastRun_ == result_->run && lastStep_ == result_->step &&
        lastRequest_.kind == q.kind && lastRequest_.layer == q.layer && lastRequest_.head == q.head &&
        lastRequest_.row == q.row)
        return;
    requestedOnce_ = true;
    lastRequest_ = q;
    lastRun_ = result_->run;
    lastStep_ = result_->step;
    Q_EMIT requested(q);
}

void InsideView::setInside(const InsideResultPtr& r) {
    const auto q = wanted();
    if (!result_ || r->run != result_->run || r->step != result_->step || r->row.query.kind != q.kind ||
        r->row.query.layer != q.layer || r->row.query.head != q.head || r->row.query.row != q.row)
        return; // a newer request is on its way
    const bool sameRow = inside_ && inside_->row.query.kind == q.kind && inside_->row.query.row == q.row;
    inside_ = r;
    status_->setVisible(false);
    if (!sameRow || key_ >= r->row.k.rows || dim_ >= r->row.headSize) {
        // The key with the most weight and its most telling dimension, until the mouse picks others.
        const auto& w = r->row.weights;
        key_ = static_cast<int>(std::max_element(w.begin(), w.end()) - w.begin());
        dim_ = argmaxAbs(r->row.products.row(key_), r->row.products.cols);
        channel_ = argmaxAbs(r->row.attnOut.data(), static_cast<int>(r->row.attnOut.size()));
    }
    draw();
}

void InsideView::setFailed(const QString& message) {
    status_->setText(tr("Cannot open this row: %1").arg(message));
    status_->setVisible(true);
}

void InsideView::draw() {
    const auto& r = inside_->row;
    const int hs = r.headSize;
    const auto qLabels = labels(r.queryTokens), kLabels = labels(r.keyTokens);
    heading_->setText(heading());
    // x and the memory change with the step, the kind and the layer, not with the row or the head: at
    // T = 1,024 on GPT-2's shape x alone is 786,432 cells.
    const std::array<uint64_t, 4> inputs{inside_->run, uint64_t(inside_->step), uint64_t(r.query.kind),
                                         uint64_t(r.query.layer)};
    if (inputs != drawnInputs_) {
        drawnInputs_ = inputs;
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
    scores_->setMatrix(s, kLabels, {tr("q·k"), QStringLiteral("÷√%1").arg(hs), tr("+mask"), tr("softmax")},
                       MatrixChart::Colours::Diverging, MatrixChart::Scaling::PerColumn);
    weighted_->setMatrix(r.weighted, kLabels);
    z_->setMatrix(rowMatrix({r.z}), {QStringLiteral("z")});
    vectors_->setMatrix(rowMatrix({r.concat, r.attnOut, r.residual, r.output}),
                        {tr("concat"), tr("attn_out"), tr("residual"), tr("output")});
    q_->setTitle(r.rotary ? tr("Q (rotated by position)") : tr("Q = x W_Q + b_Q"));
    k_->setTitle(r.rotary                                 ? tr("K (rotated; cached)")
                 : r.query.kind == AttentionKind::Encoder ? tr("K = x W_K + b_K")
                                                          : tr("K (the decoder's cache)"));
    v_->setTitle(r.query.kind == AttentionKind::Encoder ? tr("V = x W_V + b_V")
                                                        : tr("V (the decoder's cache)"));
    sampling_->setPipeline(inside_->pipeline);
    updateHighlights();
    updateLines();
}

QString InsideView::heading() const {
    if (!inside_)
        return heading_->text();
    const auto& r = inside_->row;
    const auto& q = r.query;
    const bool current =
        q.kind != AttentionKind::Encoder && q.row + 1 == static_cast<int>(r.queryTokens.size());
    QString h = tr("%1 · layer %2 · head %3 · query row %4 %5%6 · d_model %7, d_k %8 · computed in %9 ms")
                    .arg(AttentionText::kindLabel(q.kind))
                    .arg(q.layer)
                    .arg(q.head)
                    .arg(q.row)
                    .arg(quoted(r.queryTokens, q.row))
                    .arg(current ? tr(" (the current decode step)") : QString())
                    .arg(r.dModel)
                    .arg(r.headSize)
                    .arg(inside_->ms, 0, 'f', 1);
    if (state_->head() < 0)
        h += tr(" — the mean of the heads has no Q, K, V of its own: head 0 is opened");
    return h;
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
    const int i = inside_->row.query.row;
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
    const auto& r = inside_->row;
    const int i = r.query.row, j = key_, d = dim_, c = channel_, hs = r.headSize;
    const auto jj = std::size_t(j), dd = std::size_t(d), cc = std::size_t(c);
    const QString qi = quoted(r.queryTokens, i), kj = quoted(r.keyTokens, j);
    lines_[0]->setText(tr("x(%1) = norm(residual) is row %2 of %3 × %4; x(%1)[%5] = %6. %7")
                           .arg(qi)
                           .arg(i)
                           .arg(r.x.rows)
                           .arg(r.x.cols)
                           .arg(c)
                           .arg(num(r.x.at(i, c)))
                           .arg(r.memory.empty()
                                    ? tr("Self-attention: K and V are projected from these same rows.")
                                    : tr("Cross-attention: K and V are projected from the encoder output.")));
    lines_[1]->setText(tr("q(%1)[%2] = x(%1) · W_Q[:, %3] + b_Q[%3] = %4%5;  k(%6)[%2] = %7;  v(%6)[%2] = %8")
                           .arg(qi)
                           .arg(d)
                           .arg(r.query.head * hs + d)
                           .arg(num(r.q.at(i, d)))
                           .arg(r.rotary ? tr(" (after rotating by position %1)").arg(i) : QString())
                           .arg(kj)
                           .arg(num(r.k.at(j, d)))
                           .arg(num(r.v.at(j, d))));
    lines_[2]->setText(
        tr("q(%1)[%2] × k(%3)[%2] = %4 × %5 = %6; summed over the %7 dimensions: q(%1)·k(%3) = %8")
            .arg(qi)
            .arg(d)
            .arg(kj)
            .arg(num(r.q.at(i, d)))
            .arg(num(r.k.at(j, d)))
            .arg(num(r.products.at(j, d)))
            .arg(hs)
            .arg(num(r.scores[jj])));
    lines_[3]->setText(
        r.visible[jj]
            ? tr("q(%1)·k(%2) = %3; ÷ √%4 = %5; softmax over the row → %6 (the heatmap's weight: %7)")
                  .arg(qi, kj, num(r.scores[jj]))
                  .arg(hs)
                  .arg(num(r.scaled[jj]), num(r.weights[jj]), num(r.captured[jj]))
            : tr("q(%1)·k(%2) = %3; ÷ √%4 = %5; the mask adds −∞ (%6 may not see %2) → softmax gives 0")
                  .arg(qi, kj, num(r.scores[jj]))
                  .arg(hs)
                  .arg(num(r.scaled[jj]), qi));
    lines_[4]->setText(
        tr("%1 × v(%2)[%3] = %4; Σ over the keys → z[%3] = %5. The %6 heads' z side by side × W_O "
           "+ b_O → attn_out[%7] = %8; + residual %9 → %10 goes on to the next sublayer.")
            .arg(num(r.weights[jj]), kj)
            .arg(d)
            .arg(num(r.weighted.at(j, d)), num(r.z[dd]))
            .arg(r.heads)
            .arg(c)
            .arg(num(r.attnOut[cc]), num(r.residual[cc]), num(r.output[cc])));
}

QString InsideView::formulaLine(int stage) const {
    return stage >= 1 && stage <= 5 ? lines_[std::size_t(stage - 1)]->text() : QString();
}

MatrixChart* InsideView::chart(const char* name) const {
    return findChild<MatrixChart*>(QStringLiteral("inside_%1").arg(QLatin1String(name)));
}

} // namespace ui
