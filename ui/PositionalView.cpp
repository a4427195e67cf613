#include "ui/PositionalView.h"

#include "core/Model.h"
#include "core/PositionalAnalysis.h"
#include "ui/PlotHelpers.h"
#include "ui/QCustomPlotInclude.h"
#include "ui/RotationPlot.h"

#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMouseEvent>
#include <QRegularExpression>
#include <QSpinBox>
#include <QStackedWidget>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>

namespace ui {

namespace {

// More curves than this turn the plot into a hatch pattern; the table heatmap shows them all anyway.
constexpr int kMaxCurves = 12;
// The similarity matrix costs positions² × dims; past this the tab would stall on a long max_len.
constexpr int kMaxPositions = 1024;

QVector<int> parseDims(const QString& text, int dims) {
    QVector<int> out;
    const auto add = [&](int d) {
        if (d >= 0 && d < dims && !out.contains(d) && out.size() < kMaxCurves)
            out.push_back(d);
    };
    for (const auto& part : text.split(QRegularExpression(QStringLiteral("[,;\\s]+")), Qt::SkipEmptyParts)) {
        const auto ends = part.split(QLatin1Char('-'));
        bool ok1 = false, ok2 = false;
        if (ends.size() == 2) {
            const int a = ends[0].toInt(&ok1), b = ends[1].toInt(&ok2);
            if (ok1 && ok2)
                for (int d = a; d <= b; ++d)
                    add(d);
        } else if (const int d = part.toInt(&ok1); ok1) {
            add(d);
        }
    }
    return out;
}

QColor curveColor(int j) {
    // Tableau's ten categorical colours: distinct on screen and for the common colour-vision deficiencies.
    static const QRgb palette[] = {0x1f77b4, 0xff7f0e, 0x2ca02c, 0xd62728, 0x9467bd,
                                   0x8c564b, 0xe377c2, 0x7f7f7f, 0xbcbd22, 0x17becf};
    return QColor(palette[j % 10]);
}

} // namespace

PositionalView::PositionalView(QWidget* parent) : QWidget(parent) {
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(4, 4, 4, 4);
    auto* row = new QWidget;
    buildControls(row);
    outer->addWidget(row);

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

void PositionalView::buildControls(QWidget* row) {
    // Controls and the summary on two lines, so the window still fits a 1024-pixel screen.
    auto* rowLayout = new QVBoxLayout(row);
    rowLayout->setContentsMargins(0, 0, 0, 0);
    rowLayout->setSpacing(2);
    controls_ = new QWidget;
    auto* h = new QHBoxLayout(controls_);
    h->setContentsMargins(0, 0, 0, 0);
    const auto label = [&](const QString& text, QWidget* buddy) {
        auto* l = new QLabel(text);
        l->setBuddy(buddy);
        l->setToolTip(buddy->toolTip());
        h->addWidget(l);
        h->addWidget(buddy);
        return l;
    };

    sideBox_ = new QComboBox;
    sideBox_->setObjectName(QStringLiteral("sideBox"));
    sideBox_->addItems({tr("source (encoder)"), tr("target (decoder)")});
    sideBox_->setToolTip(tr("Which side's table to show: an encoder–decoder model adds one table to the "
                            "source embeddings and one to the target embeddings (learned tables differ)."));
    sideLabel_ = label(tr("&Side:"), sideBox_);
    connect(sideBox_, QOverload<int>::of(&QComboBox::currentIndexChanged), this,
            [this](int i) { setSourceSide(i == 0); });

    positionsSpin_ = new QSpinBox;
    positionsSpin_->setObjectName(QStringLiteral("positionsSpin"));
    positionsSpin_->setToolTip(tr("How many positions (0 … n−1) every plot shows."));
    label(tr("&Positions:"), positionsSpin_);
    connect(positionsSpin_, QOverload<int>::of(&QSpinBox::valueChanged), this,
            [this](int n) { setPositions(n); });

    dimsEdit_ = new QLineEdit;
    dimsEdit_->setObjectName(QStringLiteral("dimsEdit"));
    dimsEdit_->setMinimumWidth(110);
    dimsEdit_->setToolTip(tr("Dimensions drawn as curves against position, e.g. \"0, 1, 6, 7\" or \"0-3\" "
                             "(at most %1).")
                              .arg(kMaxCurves));
    label(tr("&Dims:"), dimsEdit_);
    connect(dimsEdit_, &QLineEdit::editingFinished, this, [this] { setCurveDims(dimsEdit_->text()); });

    similarityBox_ = new QComboBox;
    similarityBox_->setObjectName(QStringLiteral("similarityBox"));
    similarityBox_->addItems({tr("cosine"), tr("dot product")});
    similarityBox_->setToolTip(tr("Position-to-position similarity: cosine compares directions only; the "
                                  "dot product also grows with the vectors' lengths."));
    label(tr("Si&milarity:"), similarityBox_);
    connect(similarityBox_, QOverload<int>::of(&QComboBox::currentIndexChanged), this,
            [this](int i) { setCosineSimilarity(i == 0); });

    pairSpin_ = new QSpinBox;
    pairSpin_->setObjectName(QStringLiteral("pairSpin"));
    pairSpin_->setToolTip(tr("The pair i of dimensions (2i, 2i+1) whose points the rotation plot shows."));
    label(tr("P&air i:"), pairSpin_);
    connect(pairSpin_, QOverload<int>::of(&QSpinBox::valueChanged), this, [this](int i) { setPair(i); });

    offsetSpin_ = new QSpinBox;
    offsetSpin_->setObjectName(QStringLiteral("offsetSpin"));
    offsetSpin_->setToolTip(tr("The offset k checked in PE(pos+k) = R(kθ_i)·PE(pos)."));
    label(tr("O&ffset k:"), offsetSpin_);
    connect(offsetSpin_, QOverload<int>::of(&QSpinBox::valueChanged), this, [this](int k) { setOffset(k); });

    h->addStretch(1);
    rowLayout->addWidget(controls_);
    summary_ = new QLabel;
    summary_->setToolTip(tr("The model's positional encoding and the size of the table shown."));
    rowLayout->addWidget(summary_);
}

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

    curvePlot_ = makePlot(tr("Chosen dimensions against position"));
    curvePlot_->xAxis->setLabel(tr("position"));
    curvePlot_->yAxis->setLabel(tr("PE(pos, dim)"));
    curvePlot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    curvePlot_->axisRect()->setRangeZoom(Qt::Horizontal);
    curvePlot_->axisRect()->setRangeDrag(Qt::Horizontal);
    // The legend gets its own row under the axes, so it never hides a curve.
    curvePlot_->legend->setVisible(true);
    curvePlot_->axisRect()->insetLayout()->take(curvePlot_->legend);
    curvePlot_->plotLayout()->addElement(2, 0, curvePlot_->legend);
    curvePlot_->plotLayout()->setRowStretchFactor(2, 0.001);
    curvePlot_->legend->setFillOrder(QCPLegend::foColumnsFirst);
    curvePlot_->legend->setWrap(6);
    curvePlot_->legend->setBorderPen(Qt::NoPen);
    curvePlot_->legend->setFont(QFont(curvePlot_->font().family(), 8));
    grid->addWidget(curvePlot_, 0, 1);

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
    const bool encoderDecoder = model_ && model_->config().hasEncoder();
    sideBox_->setVisible(encoderDecoder);
    sideLabel_->setVisible(encoderDecoder);
    source_ = encoderDecoder;
    {
        const QSignalBlocker block(sideBox_);
        sideBox_->setCurrentIndex(source_ ? 0 : 1);
    }
    if (model_) {
        const int d = model_->config().dModel;
        const QString dimsText = d >= 8 ? QStringLiteral("0, 1, 6, 7") : QStringLiteral("0, 1");
        const QSignalBlocker block(dimsEdit_);
        dimsEdit_->setText(dimsText);
    }
    positions_ = 0; // loadTable picks the default for the new table
    loadTable();
}

void PositionalView::loadTable() {
    table_ = model_ ? model_->positionalTable(source_) : std::vector<float>{};
    const bool empty = table_.empty() || dims() < 2;
    controls_->setVisible(!empty);
    if (empty) {
        if (!model_) {
            explanation_->setText(tr("No model loaded."));
            summary_->clear();
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
            summary_->setText(tr("rope"));
        } else {
            explanation_->setText(
                tr("<p><b>This model has no positional encoding.</b></p>"
                   "<p>Self-attention treats its input as an unordered set: without a table added to the "
                   "embeddings (or rotations inside attention), only the decoder's causal mask gives the "
                   "model any sense of order.</p>"));
            summary_->setText(tr("none"));
        }
        // Stale cells would otherwise answer the accessors for a model that has no table.
        tableMap_->data()->clear();
        similarityMap_->data()->clear();
        curvePlot_->clearGraphs();
        stack_->setCurrentIndex(1);
        return;
    }
    stack_->setCurrentIndex(0);
    const int n = std::min(rows(), kMaxPositions);
    if (positions_ <= 0)
        positions_ = std::min(n, 128);
    positions_ = std::clamp(positions_, std::min(2, n), n);
    {
        const QSignalBlocker b1(positionsSpin_), b2(pairSpin_), b3(offsetSpin_);
        positionsSpin_->setRange(std::min(2, n), n);
        positionsSpin_->setValue(positions_);
        pairSpin_->setRange(0, dims() / 2 - 1);
        pair_ = std::clamp(pair_, 0, dims() / 2 - 1);
        pairSpin_->setValue(pair_);
    }
    curveDims_ = parseDims(dimsEdit_->text(), dims());
    summary_->setText(tr("%1 · %2 positions × %3 dims")
                          .arg(QString::fromLatin1(core::toString(model_->config().positional)))
                          .arg(rows())
                          .arg(dims()));
    updateAll();
}

void PositionalView::updateAll() {
    {
        const QSignalBlocker block(offsetSpin_);
        offsetSpin_->setRange(1, std::max(1, positions_ - 1));
        offset_ = std::clamp(offset_, 1, std::max(1, positions_ - 1));
        offsetSpin_->setValue(offset_);
    }
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
    if (!model_ || !model_->config().hasEncoder() || source == source_)
        return;
    source_ = source;
    const QSignalBlocker block(sideBox_);
    sideBox_->setCurrentIndex(source ? 0 : 1);
    loadTable();
}

void PositionalView::setPositions(int positions) {
    if (table_.empty())
        return;
    const int n = std::min(rows(), kMaxPositions);
    positions = std::clamp(positions, std::min(2, n), n);
    {
        const QSignalBlocker block(positionsSpin_);
        positionsSpin_->setValue(positions);
    }
    if (positions == positions_)
        return;
    positions_ = positions;
    updateAll();
}

void PositionalView::setCurveDims(const QString& dims) {
    {
        const QSignalBlocker block(dimsEdit_);
        if (dimsEdit_->text() != dims)
            dimsEdit_->setText(dims);
    }
    curveDims_ = parseDims(dims, this->dims());
    updateCurves();
}

void PositionalView::setCosineSimilarity(bool cosine) {
    {
        const QSignalBlocker block(similarityBox_);
        similarityBox_->setCurrentIndex(cosine ? 0 : 1);
    }
    if (cosine == cosine_)
        return;
    cosine_ = cosine;
    updateSimilarity();
}

void PositionalView::setPair(int pair) {
    if (table_.empty())
        return;
    pair = std::clamp(pair, 0, dims() / 2 - 1);
    {
        const QSignalBlocker block(pairSpin_);
        pairSpin_->setValue(pair);
    }
    if (pair == pair_)
        return;
    pair_ = pair;
    updateRotation();
}

void PositionalView::setOffset(int offset) {
    if (table_.empty())
        return;
    offset = std::clamp(offset, 1, std::max(1, positions_ - 1));
    {
        const QSignalBlocker block(offsetSpin_);
        offsetSpin_->setValue(offset);
    }
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
    curvePlot_->clearGraphs();
    const int d = dims(), n = positions_;
    QVector<double> x(n);
    for (int pos = 0; pos < n; ++pos)
        x[pos] = pos;
    for (int j = 0; j < curveDims_.size(); ++j) {
        const int dim = curveDims_[j];
        QVector<double> y(n);
        for (int pos = 0; pos < n; ++pos)
            y[pos] = table_[static_cast<size_t>(pos) * d + dim];
        auto* g = curvePlot_->addGraph();
        g->setData(x, y, true);
        g->setPen(QPen(curveColor(j), 1.5));
        QString name = tr("dim %1").arg(dim);
        if (sinusoidal())
            name += (dim % 2 == 0 ? tr(": sin(pos·θ%1)") : tr(": cos(pos·θ%1)")).arg(subscript(dim / 2));
        g->setName(name);
    }
    curvePlot_->xAxis->setRange(0, std::max(1, n - 1));
    curvePlot_->yAxis->rescale();
    const auto r = curvePlot_->yAxis->range();
    curvePlot_->yAxis->setRange(r.lower - 0.05 * r.size(), r.upper + 0.05 * r.size());
    curvePlot_->legend->setVisible(!curveDims_.isEmpty());
    curvePlot_->replot();
}

void PositionalView::updateSimilarity() {
    const int n = positions_;
    const auto kind = cosine_ ? core::SimilarityKind::Cosine : core::SimilarityKind::Dot;
    const auto s = core::positionSimilarity(table_, dims(), n, kind);
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
    similarityMap_->setDataRange(cosine_ ? QCPRange(-1, 1)
                                         : QCPRange(-std::max(m, 1e-12), std::max(m, 1e-12)));
    similarityMap_->setGradient(colorMap_.gradient());
    similarityPlot_->xAxis->setRange(-0.5, n - 0.5);
    similarityPlot_->yAxis->setRange(-0.5, n - 0.5);
    setPlotTitle(similarityPlot_,
                 cosine_ ? tr("Cosine similarity of positions") : tr("Dot product of positions"));
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

double PositionalView::similarityAt(int a, int b) const {
    auto* cells = similarityMap_->data();
    if (a < 0 || b < 0 || b >= cells->keySize() || a >= cells->valueSize())
        return std::numeric_limits<double>::quiet_NaN();
    return cells->cell(b, a);
}

int PositionalView::curveCount() const {
    return curvePlot_->graphCount();
}

double PositionalView::rotationError() const {
    return rotation_->rotationError();
}

QString PositionalView::rotationText() const {
    return rotation_->rotationText();
}

QString PositionalView::frequencyText() const {
    return rotation_->frequencyText();
}

QCustomPlot* PositionalView::rotationPlot() const {
    return rotation_->plot();
}

} // namespace ui
