#include "ui/positional/PositionalView.h"

#include "core/analysis/PositionalAnalysis.h"
#include "core/model/Model.h"
#include "ui/base/LatestJob.h"
#include "ui/base/PlotHelpers.h"
#include "ui/base/QCustomPlotInclude.h"
#include "ui/positional/CurvePlot.h"
#include "ui/positional/PositionalControls.h"
#include "ui/positional/RotationPlot.h"

#include <QGridLayout>
#include <QLabel>
#include <QMouseEvent>
#include <QStackedWidget>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>

namespace ui {

namespace {

// The similarity matrix costs positions² × dims; past this the tab would stall on a long max_len.
constexpr int kMaxPositions = 1024;
constexpr int kDefaultPositions = 128;

} // namespace

PositionalView::PositionalView(QWidget* parent) : QWidget(parent), similarityJob_(new LatestJob(this)) {
    connect(similarityJob_, &LatestJob::busyChanged, this, &PositionalView::busyChanged);
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(4, 4, 4, 4);
    controls_ = new PositionalControls;
    connect(controls_, &PositionalControls::sourceSideChosen, this, &PositionalView::setSourceSide);
    connect(controls_, &PositionalControls::positionsChosen, this, &PositionalView::setPositions);
    connect(controls_, &PositionalControls::curveDimsEdited, this, &PositionalView::setCurveDims);
    connect(controls_, &PositionalControls::cosineSimilarityChosen, this,
            &PositionalView::setCosineSimilarity);
    connect(controls_, &PositionalControls::pairChosen, this, &PositionalView::setPair);
    connect(controls_, &PositionalControls::offsetChosen, this, &PositionalView::setOffset);
    outer->addWidget(controls_);

    stack_ = new QStackedWidget;
    auto* grid = new QWidget;
    buildPlots(grid);
    stack_->addWidget(grid);
    auto* page = new QWidget;
    auto* pageLayout = new QVBoxLayout(page);
    explanation_ = new QLabel;
    explanation_->setWordWrap(true);
    explanation_->setTextFormat(Qt::RichText);
    // A readable measure: neither one line across a wide window nor the narrow column a wrapped
    // label's size hint picks.
    explanation_->setMinimumWidth(560);
    explanation_->setMaximumWidth(640);
    pageLayout->addWidget(explanation_, 0, Qt::AlignCenter);
    stack_->addWidget(page);
    outer->addWidget(stack_, 1);
    setModel(nullptr);
}

PositionalView::~PositionalView() = default;

void PositionalView::buildPlots(QWidget* gridWidget) {
    auto* grid = new QGridLayout(gridWidget);
    grid->setContentsMargins(0, 0, 0, 0);
    grid->setSpacing(6);
    grid->setRowStretch(0, 1);
    grid->setRowStretch(1, 1);
    grid->setColumnStretch(0, 1);
    grid->setColumnStretch(1, 1);

    tablePlot_ = makePlot(tr("Table PE(pos, dim)"));
    tableMap_ = makeHeatmap(tablePlot_, tableScale_);
    tablePlot_->xAxis->setLabel(tr("dimension"));
    tablePlot_->yAxis->setLabel(tr("position"));
    grid->addWidget(tablePlot_, 0, 0);

    curves_ = new CurvePlot;
    grid->addWidget(curves_, 0, 1);

    similarityPlot_ = makePlot(tr("Similarity of positions"));
    similarityMap_ = makeHeatmap(similarityPlot_, similarityScale_);
    similarityPlot_->xAxis->setLabel(tr("position"));
    similarityPlot_->yAxis->setLabel(tr("position"));
    grid->addWidget(similarityPlot_, 1, 0);

    for (auto* plot : {tablePlot_, similarityPlot_}) {
        plot->setMouseTracking(true);
        connect(plot, &QCustomPlot::mouseMove, this, [this, plot](QMouseEvent* e) {
            const int x = static_cast<int>(std::lround(plot->xAxis->pixelToCoord(e->pos().x())));
            const int y = static_cast<int>(std::lround(plot->yAxis->pixelToCoord(e->pos().y())));
            const bool table = plot == tablePlot_;
            const double v = table ? tableValueAt(y, x) : similarityAt(y, x);
            if (std::isnan(v) || !plot->axisRect()->rect().contains(e->pos())) {
                QToolTip::hideText();
                return;
            }
            const QString text = table ? tr("pos %1, dim %2: %3").arg(y).arg(x).arg(v, 0, 'g', 5)
                                       : tr("pos %1 · pos %2: %3").arg(y).arg(x).arg(v, 0, 'g', 5);
            QToolTip::showText(e->globalPosition().toPoint(), text, plot);
        });
    }

    rotation_ = new RotationPlot;
    grid->addWidget(rotation_, 1, 1);
}

void PositionalView::setModel(std::shared_ptr<const core::Model> model) {
    model_ = std::move(model);
    const bool encoderDecoder = model_ && model_->config().twoSided();
    controls_->setSideSelectable(encoderDecoder);
    source_ = encoderDecoder;
    controls_->setSourceSide(source_);
    if (model_) {
        // Dimensions 0 and 1 turn by a radian per position: sampled at whole positions they zig-zag. A
        // sinusoidal table opens on pairs whose waves the positions shown can draw.
        const auto& c = model_->config();
        QStringList dims;
        if (c.positional == core::PositionalEncoding::Sinusoidal)
            for (const int dim : core::smoothSinusoidalDims(c.dModel, std::min(c.maxLen, kDefaultPositions)))
                dims << QString::number(dim);
        else
            dims = QStringList{QStringLiteral("0"), QStringLiteral("1"), QStringLiteral("2"),
                               QStringLiteral("3")}
                       .mid(0, std::min(4, c.dModel));
        controls_->setDimsText(dims.join(QStringLiteral(", ")));
    }
    positions_ = 0;           // loadTable picks the default for the new table
    similarityJob_->forget(); // the last model's
    loadTable();
}

void PositionalView::loadTable() {
    table_ = model_ ? model_->positionalTable(source_) : std::vector<float>{};
    const bool empty = table_.empty() || dims() < 2;
    controls_->setControlsVisible(!empty);
    if (empty) {
        if (!model_) {
            explanation_->setText(tr("No model loaded."));
            controls_->setSummary(QString());
        } else if (model_->config().positional == core::PositionalEncoding::Rope) {
            explanation_->setText(
                tr("<p><b>Rotary position embeddings (RoPE): there is no table to show.</b></p>"
                   "<p>Nothing is added to the token embeddings. Positions are rotations applied inside "
                   "every "
                   "attention layer to the queries and keys: each is split into pairs of dimensions (2i, "
                   "2i+1), and at position pos the pair is rotated by the angle pos·θ<sub>i</sub>, "
                   "θ<sub>i</sub> = base<sup>−2i/d<sub>head</sub></sup> (base = %1).</p>"
                   "<p>A query at position m and a key at position n are rotated by mθ<sub>i</sub> and "
                   "nθ<sub>i</sub>, so their score depends on the offset m − n, not on where the pair "
                   "sits in the sequence.</p>")
                    .arg(model_->config().ropeBase));
            controls_->setSummary(tr("rotary (RoPE): rotations inside attention, no table"));
        } else {
            explanation_->setText(
                tr("<p><b>This model has no positional encoding.</b></p>"
                   "<p>Self-attention treats its input as an unordered set: without a table added to the "
                   "embeddings (or rotations inside attention), only the decoder's causal mask gives the "
                   "model any sense of order.</p>"));
            controls_->setSummary(tr("no positional encoding"));
        }
        // Stale cells would otherwise answer the accessors for a model that has no table.
        tableMap_->data()->clear();
        similarityMap_->data()->clear();
        curves_->clear();
        stack_->setCurrentIndex(1);
        return;
    }
    stack_->setCurrentIndex(0);
    // Model::positionalTable puts a halves table's columns in pairs, so that every view reads them alike.
    tablePlot_->xAxis->setLabel(model_->config().sinusoidHalves
                                    ? tr("dimension, as sine–cosine pairs (this model stores the sines, then "
                                         "the cosines)")
                                    : tr("dimension"));
    const int n = std::min(rows(), kMaxPositions);
    if (positions_ <= 0)
        positions_ = std::min(n, kDefaultPositions);
    positions_ = std::clamp(positions_, std::min(2, n), n);
    const int len = model_->config().maxLen;
    QString limit;
    if (rows() > kMaxPositions)
        limit = tr("of %1 rows (at most %2 shown: the similarity costs n²)").arg(rows()).arg(kMaxPositions);
    else if (rows() == len)
        limit = tr("of %1 = max_len").arg(rows());
    else
        limit = tr("of %1 rows").arg(rows());
    controls_->setPositionsRange(std::min(2, n), n, limit);
    controls_->setPositions(positions_);
    controls_->setPairRange(0, dims() / 2 - 1);
    pair_ = std::clamp(pair_, 0, dims() / 2 - 1);
    controls_->setPair(pair_);
    curveDims_ = PositionalControls::parseDims(controls_->dimsText(), dims());
    controls_->setSummary(tr("%1 · %2 positions × %3 dims")
                              .arg(QString::fromLatin1(core::toString(model_->config().positional)))
                              .arg(rows())
                              .arg(dims()));
    updateAll();
}

void PositionalView::updateAll() {
    controls_->setOffsetRange(1, std::max(1, positions_ - 1));
    offset_ = std::clamp(offset_, 1, std::max(1, positions_ - 1));
    controls_->setOffset(offset_);
    updateTable();
    updateCurves();
    updateSimilarity();
    updateRotation();
}

void PositionalView::setColorMap(const ColorMap& map) {
    colorMap_ = map;
    tableMap_->setGradient(map.gradient());
    similarityMap_->setGradient(map.gradient());
    tablePlot_->replot();
    similarityPlot_->replot();
}

void PositionalView::setSourceSide(bool source) {
    if (!model_ || !model_->config().twoSided() || source == source_)
        return;
    source_ = source;
    controls_->setSourceSide(source);
    loadTable();
}

void PositionalView::setPositions(int positions) {
    if (table_.empty())
        return;
    const int n = std::min(rows(), kMaxPositions);
    positions = std::clamp(positions, std::min(2, n), n);
    controls_->setPositions(positions);
    if (positions == positions_)
        return;
    positions_ = positions;
    updateAll();
}

void PositionalView::setCurveDims(const QString& dims) {
    // Rewriting the same text would throw the cursor to the end while the user is still in the field.
    if (controls_->dimsText() != dims)
        controls_->setDimsText(dims);
    curveDims_ = PositionalControls::parseDims(dims, this->dims());
    updateCurves();
}

void PositionalView::setCosineSimilarity(bool cosine) {
    controls_->setCosineSimilarity(cosine);
    if (cosine == cosine_)
        return;
    cosine_ = cosine;
    updateSimilarity();
}

void PositionalView::setPair(int pair) {
    if (table_.empty())
        return;
    pair = std::clamp(pair, 0, dims() / 2 - 1);
    controls_->setPair(pair);
    if (pair == pair_)
        return;
    pair_ = pair;
    updateRotation();
}

void PositionalView::setOffset(int offset) {
    if (table_.empty())
        return;
    offset = std::clamp(offset, 1, std::max(1, positions_ - 1));
    controls_->setOffset(offset);
    if (offset == offset_)
        return;
    offset_ = offset;
    rotation_->setOffset(offset_);
}

bool PositionalView::sinusoidal() const {
    return model_ && model_->config().positional == core::PositionalEncoding::Sinusoidal;
}

int PositionalView::dims() const {
    return model_ ? model_->config().dModel : 0;
}

int PositionalView::rows() const {
    return dims() > 0 ? static_cast<int>(table_.size()) / dims() : 0;
}

void PositionalView::updateTable() {
    const int d = dims(), n = positions_;
    auto* cells = tableMap_->data();
    cells->setSize(d, n);
    cells->setRange(QCPRange(0, d - 1), QCPRange(0, n - 1));
    for (int pos = 0; pos < n; ++pos)
        for (int dim = 0; dim < d; ++dim)
            cells->setCell(dim, pos, table_[static_cast<size_t>(pos) * d + dim]);
    // Symmetric, so 0 sits mid-scale and the sign of every cell reads the same way.
    const double m = std::max(core::maxAbs(table_, d, n), 1e-12);
    tableMap_->setDataRange(QCPRange(-m, m));
    tableMap_->setGradient(colorMap_.gradient());
    tablePlot_->xAxis->setRange(-0.5, d - 0.5);
    tablePlot_->yAxis->setRange(-0.5, n - 0.5);
    tablePlot_->replot();
}

void PositionalView::updateCurves() {
    curves_->showCurves(table_, dims(), positions_, curveDims_, sinusoidal());
}

void PositionalView::updateSimilarity() {
    const int n = positions_;
    const bool cosine = cosine_;
    const auto kind = cosine ? core::SimilarityKind::Cosine : core::SimilarityKind::Dot;
    // positions² × dims multiply-adds (805 M at GPT-2 small's 1,024 positions of 768 dims): on a thread of
    // its own, the newest request only; the map shows the last one until this one is done.
    similarityJob_->start(
        [table = table_, d = dims(), n, kind] { return core::positionSimilarity(table, d, n, kind); },
        [this, n, cosine](std::vector<double> s, const QString& error) {
            if (error.isEmpty())
                showSimilarity(s, n, cosine);
        });
}

void PositionalView::showSimilarity(const std::vector<double>& s, int n, bool cosine) {
    auto* cells = similarityMap_->data();
    cells->setSize(n, n);
    cells->setRange(QCPRange(0, n - 1), QCPRange(0, n - 1));
    double m = 0.0;
    for (int a = 0; a < n; ++a)
        for (int b = 0; b < n; ++b) {
            const double v = s[static_cast<size_t>(a) * n + b];
            cells->setCell(b, a, v);
            m = std::max(m, std::abs(v));
        }
    similarityMap_->setDataRange(cosine ? QCPRange(-1, 1)
                                        : QCPRange(-std::max(m, 1e-12), std::max(m, 1e-12)));
    similarityMap_->setGradient(colorMap_.gradient());
    similarityPlot_->xAxis->setRange(-0.5, n - 0.5);
    similarityPlot_->yAxis->setRange(-0.5, n - 0.5);
    setPlotTitle(similarityPlot_,
                 cosine ? tr("Cosine similarity of positions") : tr("Dot product of positions"));
    similarityPlot_->replot();
}

void PositionalView::updateRotation() {
    rotation_->showPair(table_, dims(), positions_, pair_, offset_, sinusoidal());
}

bool PositionalView::showsExplanation() const {
    return stack_->currentIndex() == 1;
}

QString PositionalView::explanation() const {
    return showsExplanation() ? explanation_->text() : QString();
}

QSize PositionalView::tableCells() const {
    return {tableMap_->data()->keySize(), tableMap_->data()->valueSize()};
}

double PositionalView::tableValueAt(int pos, int dim) const {
    auto* cells = tableMap_->data();
    if (pos < 0 || dim < 0 || dim >= cells->keySize() || pos >= cells->valueSize())
        return std::numeric_limits<double>::quiet_NaN();
    return cells->cell(dim, pos);
}

bool PositionalView::busy() const {
    return similarityJob_->busy();
}

double PositionalView::similarityAt(int a, int b) const {
    auto* cells = similarityMap_->data();
    if (a < 0 || b < 0 || b >= cells->keySize() || a >= cells->valueSize())
        return std::numeric_limits<double>::quiet_NaN();
    return cells->cell(b, a);
}

int PositionalView::curveCount() const {
    return curves_->curveCount();
}

QCustomPlot* PositionalView::curvePlot() const {
    return curves_->plot();
}

double PositionalView::rotationError() const {
    return rotation_->rotationError();
}

QString PositionalView::rotationText() const {
    return rotation_->rotationText();
}

QString PositionalView::offsetText() const {
    return rotation_->offsetText();
}

QString PositionalView::curveNoteText() const {
    return curves_->noteText();
}

QString PositionalView::positionsLimitText() const {
    return controls_->positionsLimitText();
}

QString PositionalView::frequencyText() const {
    return rotation_->frequencyText();
}

QCustomPlot* PositionalView::rotationPlot() const {
    return rotation_->plot();
}

} // namespace ui
