#include "ui/research/SweepTable.h"

#include "core/model/Model.h"
#include "ui/base/LatestJob.h"
#include "ui/run/RunResult.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>

namespace ui {

namespace {

constexpr int kSortRole = Qt::UserRole + 1;
constexpr int kHeadRole = Qt::UserRole + 2; // on the Kind column: the kind, for headChosen

QStandardItem* item(const QString& text, const QVariant& sortBy) {
    auto* it = new QStandardItem(text);
    it->setData(sortBy, kSortRole);
    it->setEditable(false);
    return it;
}

QStandardItem* number(double value, int decimals) {
    auto* it = item(QString::number(value, 'f', decimals), value);
    it->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return it;
}

} // namespace

SweepTable::SweepTable(QWidget* parent) : QWidget(parent), job_(new LatestJob(this)) {
    auto* col = new QVBoxLayout(this);
    col->setContentsMargins(0, 0, 0, 0);
    auto* bar = new QHBoxLayout;
    start_ = new QPushButton(tr("S&weep Every Head"), this);
    start_->setObjectName(QStringLiteral("sweepButton"));
    start_->setToolTip(tr("Switch each head off alone and measure what changes: the KL of the next token "
                          "along the greedy output (its first %1 tokens), and the output itself")
                           .arg(kGreedyTokens));
    cancel_ = new QPushButton(tr("Cancel"), this);
    cancel_->setEnabled(false);
    cancel_->setToolTip(tr("Stop the sweep; the table keeps the last complete one"));
    bar_ = new QProgressBar(this);
    bar_->setVisible(false);
    status_ = new QLabel(tr("Not swept yet."), this);
    status_->setObjectName(QStringLiteral("sweepStatus"));
    status_->setWordWrap(true);
    bar->addWidget(start_);
    bar->addWidget(cancel_);
    bar->addWidget(bar_);
    bar->addWidget(status_, 1);
    col->addLayout(bar);

    items_ = new QStandardItemModel(0, ColumnCount, this);
    items_->setSortRole(kSortRole);
    const char* titles[] = {QT_TR_NOOP("Kind"),
                            QT_TR_NOOP("Layer"),
                            QT_TR_NOOP("Head"),
                            QT_TR_NOOP("Mean KL"),
                            QT_TR_NOOP("Max KL"),
                            QT_TR_NOOP("Output changed"),
                            QT_TR_NOOP("Output with the head off")};
    const char* tips[] = {
        nullptr,
        nullptr,
        nullptr,
        QT_TR_NOOP("KL(every head on ‖ this head off) of the next token in nats, averaged over "
                   "the positions of the greedy output"),
        QT_TR_NOOP("The largest of those KLs"),
        QT_TR_NOOP("Where the greedy output first differs (token index), or no"),
        nullptr};
    for (int c = 0; c < ColumnCount; ++c) {
        auto* h = new QStandardItem(tr(titles[c]));
        if (tips[c])
            h->setToolTip(tr(tips[c]));
        items_->setHorizontalHeaderItem(c, h);
    }
    view_ = new QTableView(this);
    view_->setObjectName(QStringLiteral("sweepView"));
    view_->setModel(items_);
    view_->setSortingEnabled(true);
    view_->setSelectionBehavior(QAbstractItemView::SelectRows);
    view_->setSelectionMode(QAbstractItemView::SingleSelection);
    view_->setAlternatingRowColors(true);
    view_->verticalHeader()->setVisible(false);
    view_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    view_->horizontalHeader()->setStretchLastSection(true);
    view_->setToolTip(tr("Click a header to sort by it; double-click a row (or press Enter) to switch that "
                         "head off in the run"));
    col->addWidget(view_, 1);

    connect(this, &SweepTable::progressed, this, &SweepTable::progress, Qt::QueuedConnection);
    connect(start_, &QPushButton::clicked, this, &SweepTable::start);
    connect(cancel_, &QPushButton::clicked, this, &SweepTable::cancel);
    const auto choose = [this](const QModelIndex& index) {
        if (!index.isValid())
            return;
        const auto row = index.row();
        const auto kind = static_cast<core::AttentionKind>(items_->item(row, Kind)->data(kHeadRole).toInt());
        Q_EMIT headChosen({kind, items_->item(row, Layer)->data(kSortRole).toInt(),
                           items_->item(row, Head)->data(kSortRole).toInt()});
    };
    connect(view_, &QTableView::doubleClicked, this, choose);
    connect(view_, &QTableView::activated, this, choose);
}

SweepTable::~SweepTable() {
    if (stop_)
        stop_->store(true);
    // The job's thread emits this table's signal: it must be over before the table is half destroyed.
    delete job_;
    job_ = nullptr;
}

void SweepTable::setRun(std::shared_ptr<const core::Model> model, std::vector<int64_t> src,
                        std::vector<int64_t> prefix, int64_t positions) {
    if (model != model_) {
        cancel();
        effects_.clear();
        items_->removeRows(0, items_->rowCount());
        status_->setText(tr("Not swept yet."));
    }
    model_ = std::move(model);
    src_ = std::move(src);
    prefix_ = std::move(prefix);
    positions_ = positions;
    start_->setEnabled(model_ && !model_->config().recurrent());
}

bool SweepTable::busy() const {
    return job_->busy();
}

QString SweepTable::status() const {
    return status_->text();
}

void SweepTable::start() {
    if (!model_ || prefix_.empty())
        return;
    if (stop_)
        stop_->store(true);
    stop_ = std::make_shared<std::atomic<bool>>(false);
    bar_->setRange(0, 0);
    bar_->setVisible(true);
    cancel_->setEnabled(true);
    status_->setText(tr("Sweeping…"));
    job_->start(
        [model = model_, src = src_, prefix = prefix_, positions = positions_, stop = stop_, this] {
            return core::ablationSweep(
                model, src, prefix, kGreedyTokens,
                [stop, this](int done, int total) {
                    // This runs on the job's thread: the signal is queued to the bar's. The destructor stops
                    // the job and waits for it before this widget goes.
                    if (stop->load())
                        return false;
                    Q_EMIT progressed(done, total);
                    return true;
                },
                positions);
        },
        [this](const std::optional<core::AblationSweep>& sweep, const QString& error) {
            bar_->setVisible(false);
            cancel_->setEnabled(false);
            if (!error.isEmpty())
                status_->setText(error);
            else if (sweep)
                show(*sweep);
            else
                status_->setText(tr("Cancelled; the table shows the last complete sweep."));
            Q_EMIT finished();
        });
}

void SweepTable::cancel() {
    if (stop_)
        stop_->store(true); // the sweep stops after the head it is on
    if (!job_->busy())
        return;
    job_->forget(); // answered at once: the stopped sweep's result is dropped
    bar_->setVisible(false);
    cancel_->setEnabled(false);
    status_->setText(tr("Cancelled; the table shows the last complete sweep."));
    Q_EMIT finished();
}

void SweepTable::progress(int done, int total) {
    if (!bar_->isVisible())
        return;
    bar_->setRange(0, total);
    bar_->setValue(done);
    status_->setText(tr("Head %1 of %2…").arg(done).arg(total));
}

void SweepTable::show(const core::AblationSweep& sweep) {
    effects_ = sweep.heads;
    items_->removeRows(0, items_->rowCount());
    int changed = 0;
    for (const auto& e : sweep.heads) {
        auto* kind = item(QString::fromUtf8(core::toString(e.head.kind)), static_cast<int>(e.head.kind));
        kind->setData(static_cast<int>(e.head.kind), kHeadRole);
        auto* diff = item(e.changed ? tr("at token %1").arg(e.firstDifference) : tr("no"),
                          e.changed ? e.firstDifference : 1 << 30);
        items_->appendRow({kind, number(e.head.layer, 0), number(e.head.head, 0), number(e.meanKl, 4),
                           number(e.maxKl, 4), diff, item(QString::fromStdString(e.output), QString())});
        changed += e.changed ? 1 : 0;
    }
    view_->sortByColumn(MeanKl, Qt::DescendingOrder);
    status_->setText(
        tr("%1 heads, KL averaged over %2 positions of \u201c%3\u201d; %4 change the output alone.")
            .arg(sweep.heads.size())
            .arg(sweep.positions)
            .arg(QString::fromStdString(sweep.baseline))
            .arg(changed));
}

} // namespace ui
