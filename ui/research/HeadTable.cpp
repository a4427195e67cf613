#include "ui/research/HeadTable.h"

#include "core/model/Model.h"
#include "ui/base/LatestJob.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace ui {

namespace {

constexpr int kSortRole = Qt::UserRole + 1;

struct ColumnInfo {
    const char* title;
    const char* tip;
};

// Why each number matters is what a reader of the table needs; the header tooltips carry it.
const ColumnInfo kColumns[HeadTable::ColumnCount] = {
    {QT_TRANSLATE_NOOP("ui::HeadTable", "Layer"), QT_TRANSLATE_NOOP("ui::HeadTable", "Decoder layer")},
    {QT_TRANSLATE_NOOP("ui::HeadTable", "Head"), QT_TRANSLATE_NOOP("ui::HeadTable", "Head within the layer")},
    {QT_TRANSLATE_NOOP("ui::HeadTable", "Induction"),
     QT_TRANSLATE_NOOP("ui::HeadTable",
                       "Mean weight the second copy's rows put on the token that followed the current "
                       "token's first occurrence: 1 for a perfect induction head, about 1/position for a "
                       "uniform one")},
    {QT_TRANSLATE_NOOP("ui::HeadTable", "Previous token"),
     QT_TRANSLATE_NOOP("ui::HeadTable", "Mean weight on the position just before the query (rows 1 and on)")},
    {QT_TRANSLATE_NOOP("ui::HeadTable", "First token"),
     QT_TRANSLATE_NOOP("ui::HeadTable",
                       "Mean weight on position 0, the <bos> many heads park their attention on")},
    {QT_TRANSLATE_NOOP("ui::HeadTable", "Entropy (bits)"),
     QT_TRANSLATE_NOOP("ui::HeadTable", "Mean row entropy: 0 when every row looks at one key")},
    {QT_TRANSLATE_NOOP("ui::HeadTable", "Distance"),
     QT_TRANSLATE_NOOP("ui::HeadTable", "Mean attention distance |query − key|, in positions")},
};

QStandardItem* numberItem(double value, int decimals) {
    auto* item = new QStandardItem(QString::number(value, 'f', decimals));
    item->setData(value, kSortRole);
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    item->setEditable(false);
    return item;
}

} // namespace

HeadTable::HeadTable(QWidget* parent) : QWidget(parent), job_(new LatestJob(this)) {
    auto* col = new QVBoxLayout(this);
    auto* bar = new QHBoxLayout;
    status_ = new QLabel(this);
    status_->setObjectName(QStringLiteral("headTableStatus"));
    status_->setWordWrap(true);
    repeat_ = new QSpinBox(this);
    repeat_->setRange(2, 512);
    repeat_->setValue(core::HeadAnalysisSettings{}.repeatLength);
    repeat_->setToolTip(tr("R: tokens in the random sequence that is given twice (lowered to fit the "
                           "model's max_len)"));
    sequences_ = new QSpinBox(this);
    sequences_->setRange(1, 64);
    sequences_->setValue(core::HeadAnalysisSettings{}.sequences);
    sequences_->setToolTip(tr("Random sequences the scores are averaged over"));
    recompute_ = new QPushButton(tr("&Score"), this);
    recompute_->setToolTip(tr("Score every head again with these settings"));
    bar->addWidget(status_, 1);
    bar->addWidget(new QLabel(tr("R"), this));
    bar->addWidget(repeat_);
    bar->addWidget(new QLabel(tr("Sequences"), this));
    bar->addWidget(sequences_);
    bar->addWidget(recompute_);
    col->addLayout(bar);

    items_ = new QStandardItemModel(0, ColumnCount, this);
    items_->setSortRole(kSortRole);
    for (int c = 0; c < ColumnCount; ++c) {
        auto* h = new QStandardItem(tr(kColumns[c].title));
        h->setToolTip(tr(kColumns[c].tip));
        items_->setHorizontalHeaderItem(c, h);
    }
    view_ = new QTableView(this);
    view_->setObjectName(QStringLiteral("headTableView"));
    view_->setModel(items_);
    view_->setSortingEnabled(true);
    view_->setSelectionBehavior(QAbstractItemView::SelectRows);
    view_->setSelectionMode(QAbstractItemView::SingleSelection);
    view_->setAlternatingRowColors(true);
    view_->setCornerButtonEnabled(false);
    view_->verticalHeader()->setVisible(false);
    view_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    view_->setToolTip(tr("Click a column's header to sort by it; double-click a row (or press Enter) to "
                         "show that head on the Attention page"));
    col->addWidget(view_, 1);
    view_->sortByColumn(Induction,
                        Qt::DescendingOrder); // the table opens with the strongest induction head first

    connect(recompute_, &QPushButton::clicked, this, &HeadTable::recompute);
    const auto activate = [this](const QModelIndex& index) {
        if (!index.isValid())
            return;
        const int layer = items_->item(index.row(), Layer)->data(kSortRole).toInt();
        const int head = items_->item(index.row(), Head)->data(kSortRole).toInt();
        Q_EMIT headActivated(layer, head);
    };
    connect(view_, &QTableView::activated, this, activate);
    connect(view_, &QTableView::doubleClicked, this, activate);
    status_->setText(tr("Open a model to score its heads."));
}

HeadTable::~HeadTable() = default;

void HeadTable::setModel(std::shared_ptr<const core::Model> model) {
    model_ = std::move(model);
    job_->forget(); // a result for the previous model is dropped
    scores_.clear();
    error_.clear();
    fill();
    Q_EMIT scoresChanged(scores_);
    stale_ = true;
    status_->setText(model_ ? tr("The heads are scored when this page is first shown.")
                            : tr("Open a model to score its heads."));
    if (isVisible())
        ensureScores();
}

void HeadTable::ensureScores() {
    if (stale_)
        recompute();
}

void HeadTable::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    ensureScores();
}

void HeadTable::setSettings(int repeatLength, int sequences) {
    repeat_->setValue(repeatLength);
    sequences_->setValue(sequences);
    recompute();
}

void HeadTable::recompute() {
    stale_ = false;
    scores_.clear();
    error_.clear();
    fill();
    Q_EMIT scoresChanged(scores_);
    if (!model_) {
        job_->forget();
        status_->setText(tr("Open a model to score its heads."));
        return;
    }
    core::HeadAnalysisSettings settings;
    settings.repeatLength = repeat_->value();
    settings.sequences = sequences_->value();
    scored_ = settings;
    status_->setText(tr("Scoring every head on %1 random sequences given twice…").arg(settings.sequences));
    job_->start([model = model_, settings] { return core::analyzeHeads(*model, settings); },
                [this](std::vector<core::HeadScores> scores, const QString& error) {
                    finish(std::move(scores), error);
                });
}

void HeadTable::finish(std::vector<core::HeadScores> scores, const QString& error) {
    scores_ = std::move(scores);
    error_ = error;
    fill();
    status_->setText(statusText());
    Q_EMIT scoresChanged(scores_);
}

std::optional<MeasuredSequence> HeadTable::measuredOn(QString* whyNot) const {
    if (!model_ || scores_.empty()) {
        *whyNot = computing() ? tr("the heads are still being scored") : tr("the heads have no scores yet");
        return std::nullopt;
    }
    std::vector<core::HeadProbe> probes;
    try {
        probes = core::headProbes(*model_, scored_);
    } catch (const std::exception& e) {
        *whyNot = QString::fromStdString(e.what());
        return std::nullopt;
    }
    auto& p = probes.front();
    MeasuredSequence m;
    // The field shows R (the source of an encoder–decoder, the prompt's first copy otherwise): the analysis
    // itself runs on the ids, since random ids need not survive detokenizing and tokenizing again.
    const bool enc = !p.src.empty();
    const std::vector<int64_t> r(enc ? p.src.begin() + 1 : p.tgt.begin() + 1,
                                 enc ? p.src.end() - 1 : p.tgt.begin() + 1 + p.repeatLength);
    m.text =
        QString::fromStdString((enc ? model_->sourceTokenizer() : model_->targetTokenizer()).detokenize(r));
    m.description = tr("Shown on the sequence its scores were measured on: <bos> R R, R = %1 random tokens "
                       "(the first of %2 sequences, seed %3). Type to analyse your own text.")
                        .arg(p.repeatLength)
                        .arg(scored_.sequences)
                        .arg(scored_.seed);
    if (enc) {
        m.src = std::move(p.src);
        m.tgt = std::move(p.tgt);
    } else {
        m.src =
            std::move(p.tgt); // a decoder-only model's prompt is given as its source (Session::analyzeIds)
    }
    return m;
}

bool HeadTable::computing() const {
    return job_->busy();
}

QString HeadTable::statusText() const {
    if (!error_.isEmpty())
        return tr("Cannot score the heads: %1").arg(error_);
    if (!model_ || scores_.empty())
        return status_->text();
    const int r = core::fittedRepeatLength(*model_, {repeat_->value(), sequences_->value(), 0});
    const auto best = [this](double core::HeadScores::*m) {
        return *std::max_element(scores_.begin(), scores_.end(),
                                 [m](const auto& a, const auto& b) { return a.*m < b.*m; });
    };
    const auto ind = best(&core::HeadScores::inductionScore);
    const auto prev = best(&core::HeadScores::previousTokenScore);
    // On random weights every head scores near chance: naming the best of them would name noise.
    const double chance = core::inductionChance(r);
    const QString induction =
        core::inductionStandsOut(ind.inductionScore, r)
            ? tr("Strongest induction head: layer %1, head %2 (%3; uniform attention scores %4)")
                  .arg(ind.layer)
                  .arg(ind.head)
                  .arg(ind.inductionScore, 0, 'f', 3)
                  .arg(chance, 0, 'f', 3)
            : tr("No head stands out as an induction head: the best, layer %1, head %2, scores %3, where "
                 "uniform attention scores %4 and an induction head 0.3 or more")
                  .arg(ind.layer)
                  .arg(ind.head)
                  .arg(ind.inductionScore, 0, 'f', 3)
                  .arg(chance, 0, 'f', 3);
    return tr("%1 decoder self-attention heads scored on <bos> R R, R = %2 random tokens, %3 sequences. "
              "%4; previous-token head: layer %5, head %6 (%7).")
        .arg(scores_.size())
        .arg(r)
        .arg(sequences_->value())
        .arg(induction)
        .arg(prev.layer)
        .arg(prev.head)
        .arg(prev.previousTokenScore, 0, 'f', 3);
}

void HeadTable::fill() {
    items_->removeRows(0, items_->rowCount());
    double maxEntropy = 1e-9, maxDistance = 1e-9;
    for (const auto& s : scores_) {
        maxEntropy = std::max(maxEntropy, s.entropyBits);
        maxDistance = std::max(maxDistance, s.meanDistance);
    }
    // A cell's tint grows with its value, so strong heads stand out before reading a number.
    const auto tint = [](QStandardItem* item, double fraction, QColor color) {
        color.setAlphaF(static_cast<float>(std::clamp(fraction, 0.0, 1.0) * 0.6));
        item->setBackground(color);
        return item;
    };
    const QColor warm(230, 120, 30), cool(60, 120, 200);
    for (const auto& s : scores_) {
        QList<QStandardItem*> row;
        row << numberItem(s.layer, 0) << numberItem(s.head, 0)
            << tint(numberItem(s.inductionScore, 3), s.inductionScore, warm)
            << tint(numberItem(s.previousTokenScore, 3), s.previousTokenScore, warm)
            << tint(numberItem(s.firstTokenWeight, 3), s.firstTokenWeight, cool)
            << tint(numberItem(s.entropyBits, 2), s.entropyBits / maxEntropy, cool)
            << tint(numberItem(s.meanDistance, 2), s.meanDistance / maxDistance, cool);
        items_->appendRow(row);
    }
    // New rows keep the sort the user chose.
    const auto* header = view_->horizontalHeader();
    view_->sortByColumn(header->sortIndicatorSection(), header->sortIndicatorOrder());
}

} // namespace ui
