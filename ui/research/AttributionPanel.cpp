#include "ui/research/AttributionPanel.h"

#include "core/model/Model.h"
#include "ui/base/LatestJob.h"
#include "ui/base/PlotHelpers.h"
#include "ui/base/QCustomPlotInclude.h"
#include "ui/base/TokenText.h"
#include "ui/views/MatrixChart.h"

#include <QLabel>
#include <QSplitter>
#include <QToolTip>
#include <QVBoxLayout>

#include <cmath>

namespace ui {

namespace {

using core::AttentionKind;

QString signedNumber(double v) {
    return (v >= 0 ? QStringLiteral("+") : QString()) + QString::number(v, 'f', 3);
}

} // namespace

AttributionPanel::AttributionPanel(QWidget* parent) : QWidget(parent), job_(new LatestJob(this)) {
    auto* col = new QVBoxLayout(this);
    col->setContentsMargins(0, 0, 0, 0);
    status_ = new QLabel(this);
    status_->setObjectName(QStringLiteral("attributionStatus"));
    status_->setWordWrap(true);
    status_->setToolTip(tr("Direct logit attribution: the stream at this position split into what wrote it, "
                           "each part read through every later norm frozen at the scale the run measured, so "
                           "the parts add up to the model's own logit"));
    col->addWidget(status_);
    auto* split = new QSplitter(Qt::Horizontal, this);
    heads_ = new MatrixChart(tr("Each head's share of the logit"), split);
    heads_->setObjectName(QStringLiteral("attributionHeads"));
    heads_->setMinimumSize(180, 150);
    heads_->setTipText([this](int row, int head) { return headTip(row, head); });
    barsPlot_ = makePlot(tr("The other parts"));
    barsPlot_->setParent(split);
    barsPlot_->setObjectName(QStringLiteral("attributionBars"));
    barsPlot_->setMinimumSize(160, 120);
    barsPlot_->setMouseTracking(true);
    barsPlot_->yAxis->setLabel(tr("share"));
    barsPlot_->yAxis->ticker()->setTickCount(3);
    bars_ = new QCPBars(barsPlot_->xAxis, barsPlot_->yAxis);
    bars_->setPen(Qt::NoPen);
    bars_->setBrush(QColor(0x0e, 0x76, 0x62));
    split->addWidget(heads_);
    split->addWidget(barsPlot_);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    col->addWidget(split, 1);
    connect(barsPlot_, &QCustomPlot::afterLayout, this, [this] {
        if (setTokenTicks(barsPlot_, barLabels_, {}))
            barsPlot_->replot(QCustomPlot::rpQueuedReplot);
    });
    connect(barsPlot_, &QCustomPlot::mouseMove, this, [this](QMouseEvent* e) {
        const int bar = static_cast<int>(std::lround(barsPlot_->xAxis->pixelToCoord(e->position().x())));
        if (bar < 0 || bar >= static_cast<int>(barParts_.size()) ||
            !barsPlot_->axisRect()->rect().contains(e->position().toPoint())) {
            QToolTip::hideText();
            return;
        }
        const auto* part = barParts_[std::size_t(bar)];
        QToolTip::showText(
            e->globalPosition().toPoint(),
            part
                ? componentTip(*part)
                : tr("%1: %2 in all").arg(barLabels_.value(bar), signedNumber(bars_->data()->at(bar)->value)),
            barsPlot_);
    });
    connect(heads_, &MatrixChart::clicked, this, [this](int row, int head) {
        if (row >= 0 && row < static_cast<int>(rows_.size()) && headAt(row, head))
            Q_EMIT headChosen(rows_[std::size_t(row)].first, rows_[std::size_t(row)].second, head, position_);
    });
    clear();
}

AttributionPanel::~AttributionPanel() {
    delete job_; // the job reads only what it was given; it ends before the panel does
    job_ = nullptr;
}

void AttributionPanel::clear() {
    job_->forget();
    result_.reset();
    computedFor_.reset();
    shown_ = core::Attribution{};
    position_ = -1;
    rows_.clear();
    barParts_.clear();
    barLabels_.clear();
    heads_->setMatrix({}, {});
    bars_->data()->clear();
    barsPlot_->replot();
    status_->setText(tr("Select a cell of the map: which heads and MLPs wrote its position's token."));
}

bool AttributionPanel::busy() const {
    return job_->busy();
}

QString AttributionPanel::statusText() const {
    return status_->text();
}

void AttributionPanel::request(const RunResultPtr& result, int position, int64_t token) {
    if (!result || (computedFor_ == result && position == position_ && token == token_ && !job_->busy()))
        return;
    result_ = result;
    position_ = position;
    token_ = token;
    status_->setText(tr("Splitting the logit at position %1…").arg(position));
    job_->start(
        [result, position, token] {
            return core::directLogitAttribution(*result->model, *result->snapshot, position, token, -1,
                                                result->ablation, kExtremes);
        },
        [this, result](core::Attribution a, const QString& error) {
            computedFor_ = result;
            if (!error.isEmpty()) {
                shown_ = core::Attribution{};
                heads_->setMatrix({}, {});
                bars_->data()->clear();
                barsPlot_->replot();
                status_->setText(error);
            } else {
                shown_ = std::move(a);
                display();
            }
            Q_EMIT updated();
        });
}

QString AttributionPanel::tokenText(int64_t id) const {
    if (!computedFor_)
        return QString::number(id);
    const auto& model = *computedFor_->model;
    const auto& vocab =
        (model.config().hasDecoder() ? model.targetTokenizer() : model.sourceTokenizer()).vocab();
    return tokenDisplayText(core::Token{id, id < vocab.size() ? vocab.token(id) : std::string()});
}

int AttributionPanel::rowOf(AttentionKind kind, int layer) const {
    for (std::size_t r = 0; r < rows_.size(); ++r)
        if (rows_[r] == std::pair{kind, layer})
            return static_cast<int>(r);
    return -1;
}

const core::AttributionComponent* AttributionPanel::headAt(int row, int head) const {
    if (row < 0 || row >= static_cast<int>(rows_.size()))
        return nullptr;
    const auto [kind, layer] = rows_[std::size_t(row)];
    const std::string part = kind == AttentionKind::Cross ? "cross" : "attn";
    for (const auto& c : shown_.components)
        if (c.kind == "head" && c.layer == layer && c.head == head && c.sublayer == part)
            return &c;
    return nullptr;
}

QString AttributionPanel::componentTip(const core::AttributionComponent& c) const {
    QString tip =
        tr("%1: %2 to \u201c%3\u201d's logit")
            .arg(QString::fromStdString(c.name), signedNumber(c.contribution), tokenText(shown_.token));
    const auto list = [this](const std::vector<std::pair<int64_t, float>>& tokens) {
        QStringList out;
        for (const auto& [id, change] : tokens)
            out << QStringLiteral("\u201c%1\u201d %2").arg(tokenText(id), signedNumber(change));
        return out.join(QStringLiteral(", "));
    };
    if (!c.promotes.empty())
        tip += tr("\nraises most: %1\nlowers most: %2").arg(list(c.promotes), list(c.suppresses));
    return tip;
}

QString AttributionPanel::headTip(int row, int head) const {
    const auto* c = headAt(row, head);
    if (!c)
        return {};
    return componentTip(*c) + tr("\nclick: open this head on the Attention page");
}

void AttributionPanel::display() {
    // The grid's rows: each layer's self-attention heads, then its cross-attention heads.
    rows_.clear();
    int heads = 0;
    for (const auto& c : shown_.components)
        if (c.kind == "head") {
            const auto kind = c.sublayer == "cross" ? AttentionKind::Cross
                              : shown_.encoderSide  ? AttentionKind::Encoder
                                                    : AttentionKind::Decoder;
            if (rowOf(kind, c.layer) < 0)
                rows_.emplace_back(kind, c.layer);
            heads = std::max(heads, c.head + 1);
        }
    core::Matrix grid(static_cast<int>(rows_.size()), heads);
    QStringList rowLabels, cols;
    for (std::size_t r = 0; r < rows_.size(); ++r) {
        rowLabels << tr("%1 %2")
                         .arg(rows_[r].second)
                         .arg(rows_[r].first == AttentionKind::Cross ? tr("cross") : tr("self"));
        for (int h = 0; h < heads; ++h) {
            const auto* c = headAt(static_cast<int>(r), h);
            grid.data[r * std::size_t(heads) + std::size_t(h)] = c ? float(c->contribution) : 0.0f;
        }
    }
    for (int h = 0; h < heads; ++h)
        cols << QString::number(h);
    heads_->setMatrix(grid, rowLabels, cols, MatrixChart::Colours::Diverging);

    // The bars: the embeddings, each MLP, and the rest (biases and norms) as one.
    QVector<double> x, y;
    barParts_.clear();
    barLabels_.clear();
    double rest = 0.0, headsTotal = 0.0, mlps = 0.0, embed = 0.0;
    for (const auto& c : shown_.components) {
        if (c.kind == "head") {
            headsTotal += c.contribution;
            continue;
        }
        if (c.kind == "embed" || c.kind == "mlp") {
            (c.kind == "mlp" ? mlps : embed) += c.contribution;
            x << x.size();
            y << c.contribution;
            barParts_.push_back(&c);
            barLabels_ << (c.kind == "mlp" ? tr("%1 mlp").arg(c.layer) : tr("embed"));
        } else {
            rest += c.contribution;
        }
    }
    x << x.size();
    y << rest;
    barParts_.push_back(nullptr);
    barLabels_ << tr("biases, norms");
    bars_->setData(x, y);
    const double top = std::max(1e-6, std::abs(*std::max_element(y.begin(), y.end(), [](double a, double b) {
                                    return std::abs(a) < std::abs(b);
                                })));
    barsPlot_->xAxis->setRange(-0.6, x.size() - 0.4);
    barsPlot_->yAxis->setRange(-top * 1.1, top * 1.1);
    setTokenTicks(barsPlot_, barLabels_, {});
    barsPlot_->replot();
    status_->setText(
        tr("\u201c%1\u201d at %2: logit %3 = %4 parts adding to %5: heads %6, MLPs %7, embeddings %8, "
           "biases and norms %9. Hover a part: what it raises; click a head: open it.")
            .arg(tokenText(shown_.token))
            .arg(shown_.position)
            .arg(shown_.logit, 0, 'f', 3)
            .arg(shown_.components.size())
            .arg(shown_.sum, 0, 'f', 3)
            .arg(signedNumber(headsTotal), signedNumber(mlps), signedNumber(embed), signedNumber(rest)));
}

} // namespace ui
