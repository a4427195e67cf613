#include "ui/research/RolloutPage.h"

#include "core/analysis/AttentionFlow.h"
#include "ui/base/AttentionText.h"
#include "ui/base/LatestJob.h"
#include "ui/base/PlotHelpers.h"
#include "ui/base/QCustomPlotInclude.h"
#include "ui/base/TokenText.h"
#include "ui/views/MatrixChart.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSplitter>
#include <QVBoxLayout>

#include <optional>

namespace ui {

using core::AttentionKind;

RolloutPage::RolloutPage(QWidget* parent) : QWidget(parent), job_(new LatestJob(this)) {
    auto* col = new QVBoxLayout(this);
    auto* bar = new QHBoxLayout;
    kind_ = new QComboBox(this);
    kind_->setObjectName(QStringLiteral("rolloutKind"));
    kind_->setToolTip(
        tr("Which composition: the encoder's over the source, the decoder's over the target, or "
           "the decoder's dependence on the source through cross-attention"));
    method_ = new QComboBox(this);
    method_->setObjectName(QStringLiteral("rolloutMethod"));
    method_->addItem(tr("Rollout"), static_cast<int>(Method::Rollout));
    method_->addItem(tr("Flow"), static_cast<int>(Method::Flow));
    method_->setToolTip(
        tr("Rollout multiplies the layers' attention (heads averaged, plus the residual); flow "
           "takes the same graph as a flow network and gives the maximum flow from each input "
           "to each output (inputs up to %1 tokens)")
            .arg(core::kFlowMaxTokens));
    progress_ = new QProgressBar(this);
    progress_->setVisible(false);
    progress_->setMaximumWidth(220);
    cancel_ = new QPushButton(tr("Cancel"), this);
    cancel_->setVisible(false);
    cancel_->setToolTip(tr("Stop computing the flow"));
    status_ = new QLabel(this);
    status_->setObjectName(QStringLiteral("rolloutStatus"));
    status_->setWordWrap(true);
    bar->addWidget(new QLabel(tr("Kind"), this));
    bar->addWidget(kind_);
    bar->addWidget(new QLabel(tr("Method"), this));
    bar->addWidget(method_);
    bar->addWidget(progress_);
    bar->addWidget(cancel_);
    bar->addWidget(status_, 1);
    col->addLayout(bar);

    auto* split = new QSplitter(Qt::Vertical, this);
    chart_ = new MatrixChart(tr("Rollout"), split);
    barsPlot_ = new QCustomPlot(split);
    barsPlot_->setObjectName(QStringLiteral("rolloutBars"));
    bars_ = new QCPBars(barsPlot_->xAxis, barsPlot_->yAxis);
    bars_->setBrush(QColor(49, 104, 142));
    bars_->setPen(Qt::NoPen);
    barsPlot_->yAxis->setLabel(tr("share"));
    // A few shares on its axis, and room for them: squeezed to 40 px, the default ticks stacked.
    barsPlot_->yAxis->ticker()->setTickCount(3);
    barsPlot_->setMinimumHeight(120);
    connect(barsPlot_, &QCustomPlot::afterLayout, this, [this] {
        if (setTokenTicks(barsPlot_, barLabels_, {}))
            barsPlot_->replot(QCustomPlot::rpQueuedReplot);
    });
    split->addWidget(chart_);
    split->addWidget(barsPlot_);
    split->setCollapsible(1, false);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    col->addWidget(split, 1);

    connect(kind_, qOverload<int>(&QComboBox::currentIndexChanged), this, [this] { request(); });
    connect(method_, qOverload<int>(&QComboBox::currentIndexChanged), this, [this] { request(); });
    connect(cancel_, &QPushButton::clicked, this, &RolloutPage::cancel);
    connect(
        this, &RolloutPage::progressed, this,
        [this](int done, int total) {
            progress_->setRange(0, total);
            progress_->setValue(done);
        },
        Qt::QueuedConnection);
    clear();
}

RolloutPage::~RolloutPage() {
    if (stop_)
        stop_->store(true);
    // The job's thread emits this page's signal: it must be over before the page is half destroyed, which
    // the child's own destructor (after this one) would be too late for.
    delete job_;
    job_ = nullptr;
}

void RolloutPage::clear() {
    cancel();
    result_.reset();
    computedFor_.reset();
    shown_ = core::Rollout{};
    status_->setText(tr("No text analysed."));
    chart_->setMatrix({}, {});
    bars_->data()->clear();
    barsPlot_->replot();
}

void RolloutPage::setResult(const RunResultPtr& result) {
    result_ = result;
    offerKinds();
    if (isVisible())
        request();
}

void RolloutPage::offerKinds() {
    const auto current = kind_->currentData();
    const QSignalBlocker block(kind_);
    kind_->clear();
    const auto& snap = *result_->snapshot;
    // A recurrent model's one map is already the whole story: nothing to compose.
    const bool composes = snap.has(AttentionKind::Encoder) || snap.has(AttentionKind::Decoder);
    for (const auto k : {AttentionKind::Cross, AttentionKind::Encoder, AttentionKind::Decoder})
        if (composes && snap.has(k))
            kind_->addItem(AttentionText::kindName(k), static_cast<int>(k));
    const int keep = kind_->findData(current);
    kind_->setCurrentIndex(keep >= 0 ? keep : 0);
}

void RolloutPage::choose(AttentionKind kind, Method method) {
    {
        const QSignalBlocker a(kind_), b(method_);
        const int k = kind_->findData(static_cast<int>(kind));
        if (k >= 0)
            kind_->setCurrentIndex(k);
        method_->setCurrentIndex(method_->findData(static_cast<int>(method)));
    }
    request();
}

void RolloutPage::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    request();
}

bool RolloutPage::busy() const {
    return job_->busy();
}

QString RolloutPage::statusText() const {
    return status_->text();
}

void RolloutPage::cancel() {
    if (stop_)
        stop_->store(true); // the computation stops at its next row
    if (!job_->busy())
        return;
    // Answered at once: the result of the run being stopped is dropped.
    job_->forget();
    progress_->setVisible(false);
    cancel_->setVisible(false);
    status_->setText(tr("Cancelled: showing what was computed before."));
    Q_EMIT updated();
}

void RolloutPage::request() {
    if (stop_)
        stop_->store(true); // a flow still running is of the state before
    if (!result_ || kind_->count() == 0) {
        if (result_) {
            // What is on screen was another run's: it must not be read as this model's.
            job_->forget();
            computedFor_.reset();
            shown_ = core::Rollout{};
            chart_->setMatrix({}, {});
            bars_->data()->clear();
            barsPlot_->replot();
            progress_->setVisible(false);
            cancel_->setVisible(false);
            status_->setText(tr("This model's attention is one map over its source: there are no layers to "
                                "compose."));
            Q_EMIT updated();
        }
        return;
    }
    const auto kind = static_cast<AttentionKind>(kind_->currentData().toInt());
    const bool flow = method_->currentData().toInt() == static_cast<int>(Method::Flow);
    stop_ = std::make_shared<std::atomic<bool>>(false);
    progress_->setVisible(flow);
    progress_->setRange(0, 0);
    cancel_->setVisible(flow);
    status_->setText(flow ? tr("Computing the flow…") : tr("Rolling out…"));
    const auto result = result_;
    job_->start(
        [snap = result->snapshot, kind, flow, stop = stop_, this]() -> std::optional<core::Rollout> {
            if (!flow)
                return core::attentionRollout(*snap, kind);
            // Runs on the job's thread: progress is queued to the page; stop_ ends it between rows.
            return core::attentionFlow(*snap, kind, [stop, this](int done, int total) {
                if (stop->load())
                    return false; // the page may be going: nothing more is sent to it
                Q_EMIT progressed(done, total);
                return true;
            });
        },
        [this, result](const std::optional<core::Rollout>& r, const QString& error) {
            progress_->setVisible(false);
            cancel_->setVisible(false);
            if (!error.isEmpty())
                status_->setText(error);
            else if (!r)
                status_->setText(tr("Cancelled: showing what was computed before."));
            else {
                computedFor_ = result;
                display(*r);
            }
            Q_EMIT updated();
        });
}

void RolloutPage::display(const core::Rollout& r) {
    shown_ = r;
    const auto& snap = *computedFor_->snapshot;
    const auto rows = tokenLabels(core::queryTokens(snap, r.kind));
    const auto cols = tokenLabels(core::keyTokens(snap, r.kind));
    chart_->setTitle(r.flow
                         ? tr("Attention flow: %1 (each output's maximum flow from each input)")
                               .arg(AttentionText::kindName(r.kind))
                         : tr("Attention rollout: %1 (rows sum to 1)").arg(AttentionText::kindName(r.kind)));
    chart_->setMatrix(r.weights, rows, cols, MatrixChart::Colours::Weights);
    chart_->setHighlight(r.weights.rows - 1, -1);
    // The position being decoded now: the last row.
    const auto& w = r.weights;
    QVector<double> x, y;
    barLabels_.clear();
    for (int c = 0; c < w.cols; ++c) {
        x << c;
        y << w.at(w.rows - 1, c);
        barLabels_ << cols.value(c);
    }
    bars_->setData(x, y);
    barsPlot_->xAxis->setRange(-0.6, w.cols - 0.4);
    setTokenTicks(barsPlot_, barLabels_, {});
    barsPlot_->yAxis->setRange(0, std::max(1e-6, *std::max_element(y.begin(), y.end())) * 1.1);
    barsPlot_->xAxis->setLabel(
        tr("what \u201c%1\u201d (row %2) draws on").arg(rows.value(w.rows - 1)).arg(w.rows - 1));
    barsPlot_->replot();
    const bool decodes = computedFor_->step > 0 || r.kind != AttentionKind::Encoder;
    status_->setText(tr("%1 × %2 %3; the bar shows the last row%4.")
                         .arg(w.rows)
                         .arg(w.cols)
                         .arg(r.flow ? tr("flows") : tr("rollout weights"))
                         .arg(decodes ? tr(", the position being decoded now") : QString()));
}

} // namespace ui
