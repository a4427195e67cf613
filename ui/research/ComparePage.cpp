#include "ui/research/ComparePage.h"

#include "core/analysis/AttentionStats.h"
#include "core/model/Model.h"
#include "ui/base/AttentionText.h"
#include "ui/base/TokenText.h"
#include "ui/views/AttentionTiles.h"
#include "ui/views/HeatmapCells.h"
#include "ui/views/MatrixChart.h"

#include <QGridLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>

namespace ui {

namespace {

// One head's queries × keys weights, or the layer's mean over heads; empty when the block lacks the layer or
// the head. Keys a causal query cannot see are NaN: masked, not weight 0 (drawn in the masked colour).
core::Matrix headMatrix(const core::AttentionBlock& b, int layer, int head, bool causal) {
    core::Matrix m;
    if (b.empty() || layer >= b.layers || head >= b.heads)
        return m;
    m = core::Matrix(b.queries, b.keys);
    if (head == core::kMeanHead) {
        m.data = core::meanOverHeads(b, layer);
    } else {
        std::vector<float> scratch;
        const float* w = b.head(layer, head, scratch);
        std::copy(w, w + m.data.size(), m.data.begin());
    }
    if (causal) {
        const auto from = AttentionTiles::maskedFrom(m.rows, m.cols, m.rows, m.cols);
        for (int r = 0; r < m.rows; ++r)
            for (int c = from[std::size_t(r)]; c < m.cols; ++c)
                m.data[std::size_t(r) * std::size_t(m.cols) + std::size_t(c)] =
                    std::numeric_limits<float>::quiet_NaN();
    }
    return m;
}

// The text of a run in a header line: a long text would take the page's height (the tooltip has it whole).
constexpr int kTextInHeader = 60;

} // namespace

ComparePage::ComparePage(QWidget* parent) : QWidget(parent) {
    auto* col = new QVBoxLayout(this);
    auto* grid = new QGridLayout;
    pinButton_ = new QPushButton(tr("&Pin This Run as A"), this);
    pinButton_->setObjectName(QStringLiteral("pinButton"));
    pinButton_->setToolTip(
        tr("Keep the run on screen as A; then step, type, switch heads off or open another "
           "model with the same tokenizer, and B follows (Ctrl+Shift+P from any page)"));
    a_ = new QLabel(tr("A: nothing pinned yet."), this);
    a_->setObjectName(QStringLiteral("compareA"));
    b_ = new QLabel(this);
    b_->setObjectName(QStringLiteral("compareB"));
    for (auto* l : {a_, b_})
        l->setWordWrap(true);
    status_ = new QLabel(this);
    status_->setObjectName(QStringLiteral("compareStatus"));
    status_->setWordWrap(true);
    grid->addWidget(pinButton_, 0, 0, 2, 1);
    grid->addWidget(a_, 0, 1);
    grid->addWidget(b_, 1, 1);
    grid->setColumnStretch(1, 1);
    col->addLayout(grid);
    col->addWidget(status_);
    auto* row = new QHBoxLayout;
    const QString titles[] = {tr("A (pinned)"), tr("B (on screen)"), tr("B \u2212 A")};
    for (int i = 0; i < 3; ++i) {
        charts_[i] = new MatrixChart(titles[i], this);
        row->addWidget(charts_[i], 1);
    }
    col->addLayout(row, 1);
    connect(pinButton_, &QPushButton::clicked, this, &ComparePage::pin);
    refresh();
}

MatrixChart* ComparePage::chart(int which) const {
    return charts_[std::clamp(which, 0, 2)];
}

QString ComparePage::statusText() const {
    return status_->text();
}
QString ComparePage::aText() const {
    return a_->text();
}
QString ComparePage::bText() const {
    return b_->text();
}

void ComparePage::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (stale_)
        refresh();
}

void ComparePage::pin() {
    if (!current_)
        return;
    pinned_ = current_;
    refresh();
}

void ComparePage::setResult(const RunResultPtr& result) {
    current_ = result;
    refresh();
}

void ComparePage::clear() {
    current_.reset();
    refresh();
}

void ComparePage::setShown(const ShownAttention& shown) {
    // A new snapshot comes with setResult and heads off change nothing here: only what is drawn of a run and
    // how it is coloured.
    if (shown.kind == shown_.kind && shown.layer == shown_.layer && shown.head == shown_.head &&
        shown.scale == shown_.scale && shown.colorMap.name() == shown_.colorMap.name())
        return;
    shown_ = shown;
    shown_.snapshot.reset(); // only the kind, layer and head are read here
    refresh();
}

QString ComparePage::describe(const RunResult& r) {
    const auto name = r.model ? QString::fromStdString(r.model->config().name) : QString();
    QString text = tr("%1 \u00b7 \u201c%2\u201d \u00b7 step %3")
                       .arg(name, elided(r.sourceText, kTextInHeader))
                       .arg(r.step);
    if (!r.ablation.empty())
        text += tr(" \u00b7 heads off: %1").arg(QString::fromStdString(r.ablation.text()));
    return text;
}

void ComparePage::refresh() {
    // A step or a selection elsewhere would copy, average and draw both runs' heads (4 M weights a head at
    // 2,048 tokens) for a page nobody looks at: it catches up when shown.
    if (!isVisible()) {
        stale_ = true;
        return;
    }
    stale_ = false;
    a_->setText(pinned_ ? tr("A: %1").arg(describe(*pinned_)) : tr("A: nothing pinned yet."));
    b_->setText(current_ ? tr("B: %1").arg(describe(*current_)) : tr("B: no text analysed."));
    a_->setToolTip(pinned_ ? pinned_->sourceText : QString());
    b_->setToolTip(current_ ? current_->sourceText : QString());
    pinButton_->setEnabled(current_ != nullptr);
    // Only what there is to see: no empty plots for a run not pinned or not there.
    charts_[0]->setVisible(pinned_ != nullptr);
    charts_[1]->setVisible(current_ != nullptr);
    charts_[2]->setVisible(pinned_ != nullptr && current_ != nullptr);
    const auto kind = shown_.kind;
    const QString what =
        tr("%1, layer %2, %3")
            .arg(AttentionText::kindName(kind))
            .arg(shown_.layer)
            .arg(shown_.head == core::kMeanHead ? tr("mean over heads") : tr("head %1").arg(shown_.head));
    const bool causal = shown_.causal();
    core::Matrix a, b;
    if (pinned_)
        a = headMatrix(pinned_->snapshot->block(kind), shown_.layer, shown_.head, causal);
    if (current_)
        b = headMatrix(current_->snapshot->block(kind), shown_.layer, shown_.head, causal);
    // A and B in the Attention page's colours and scale; per head, one range spanning both heads' informative
    // ranges, so a colour means the same weight in A as in B.
    float lo = 1.0f, hi = 0.0f;
    for (const auto* m : {&a, &b})
        if (!m->empty()) {
            const auto [l, h] = core::informativeRange(m->data.data(), m->rows, m->cols, causal);
            lo = std::min(lo, l);
            hi = std::max(hi, h);
        }
    MatrixChart::WeightScale scale;
    scale.colours = shown_.colorMap;
    scale.range = colourRange(shown_.scale, std::min(lo, hi), hi);
    scale.log = shown_.scale == ScaleMode::Log;
    const auto rowsOf = [kind](const RunResultPtr& r) { return core::queryTokens(*r->snapshot, kind); };
    const auto colsOf = [kind](const RunResultPtr& r) { return core::keyTokens(*r->snapshot, kind); };
    for (auto* chart : {charts_[0], charts_[1]})
        chart->setWeightScale(scale);
    charts_[0]->setMatrix(a, pinned_ ? tokenLabels(rowsOf(pinned_), a.rows) : QStringList(),
                          pinned_ ? tokenLabels(colsOf(pinned_), a.cols) : QStringList(),
                          MatrixChart::Colours::Weights);
    charts_[1]->setMatrix(b, current_ ? tokenLabels(rowsOf(current_), b.rows) : QStringList(),
                          current_ ? tokenLabels(colsOf(current_), b.cols) : QStringList(),
                          MatrixChart::Colours::Weights);
    if (a.empty() || b.empty()) {
        charts_[2]->setMatrix({}, {});
        status_->setText(!current_ ? tr("Type a sentence, then pin its run (Ctrl+Shift+P) to compare it with "
                                        "what comes after: a step, another text, heads off, another model.")
                         : !pinned_  ? tr("Pin a run (Ctrl+Shift+P) to compare it with the one on screen.")
                         : a.empty() ? tr("A has no %1.").arg(what)
                                     : tr("B has no %1.").arg(what));
        return;
    }
    // Runs of different lengths compare where both have cells: the top-left overlap.
    const int rows = std::min(a.rows, b.rows), cols = std::min(a.cols, b.cols);
    core::Matrix d(rows, cols);
    double largest = 0.0;
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) {
            const float v = b.at(r, c) - a.at(r, c);
            d.data[static_cast<std::size_t>(r) * static_cast<std::size_t>(cols) +
                   static_cast<std::size_t>(c)] = v;
            largest = std::max(largest, double(std::abs(v)));
        }
    const auto rowsA = rowsOf(pinned_), rowsB = rowsOf(current_), colsA = colsOf(pinned_),
               colsB = colsOf(current_);
    int differ = 0;
    for (int r = 0; r < rows; ++r)
        differ += rowsA[static_cast<std::size_t>(r)].text != rowsB[static_cast<std::size_t>(r)].text;
    for (int c = 0; c < cols; ++c)
        differ += colsA[static_cast<std::size_t>(c)].text != colsB[static_cast<std::size_t>(c)].text;
    charts_[2]->setMatrix(d, tokenLabels(rowsB, rows), tokenLabels(colsB, cols),
                          MatrixChart::Colours::Diverging);
    QString note = tr("%1: the largest change is %2.").arg(what).arg(largest, 0, 'g', 4);
    if (a.rows != b.rows || a.cols != b.cols)
        note +=
            tr(" A is %1 \u00d7 %2 and B %3 \u00d7 %4: B \u2212 A covers the first %5 rows and %6 columns.")
                .arg(a.rows)
                .arg(a.cols)
                .arg(b.rows)
                .arg(b.cols)
                .arg(rows)
                .arg(cols);
    if (differ > 0)
        note += tr(" %n token(s) of the overlap differ between A and B (B's are shown).", nullptr, differ);
    status_->setText(note);
}

} // namespace ui
