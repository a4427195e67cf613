#include "ui/research/AblationPage.h"

#include "core/model/Model.h"
#include "ui/base/TokenText.h"
#include "ui/research/SweepTable.h"

#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>

namespace ui {

namespace {

// The output as text, tokens from `from` on in red: where it parts from the other.
QString marked(const std::vector<core::Token>& tokens, int from) {
    QString out;
    for (int i = 0; i < static_cast<int>(tokens.size()); ++i) {
        const auto t = tokenDisplayText(tokens[static_cast<std::size_t>(i)]).toHtmlEscaped();
        out +=
            (i ? QStringLiteral(" ") : QString()) +
            (from >= 0 && i >= from ? QStringLiteral("<span style=\"color:#c62828\"><b>%1</b></span>").arg(t)
                                    : t);
    }
    // The window decodes kGreedyTokens at most: an output that long without <eos> goes on.
    if (static_cast<int>(tokens.size()) >= kGreedyTokens && !tokens.back().special)
        out += QStringLiteral(" \u2026");
    return out;
}

} // namespace

AblationPage::AblationPage(QWidget* parent) : QWidget(parent) {
    auto* col = new QVBoxLayout(this);
    auto* top = new QHBoxLayout;
    heads_ = new QLabel(this);
    heads_->setObjectName(QStringLiteral("ablationHeads"));
    heads_->setWordWrap(true);
    clear_ = new QPushButton(tr("Switch All &On"), this);
    clear_->setToolTip(tr("Every head back on (Ctrl+Shift+H, from any page)"));
    top->addWidget(heads_, 1);
    top->addWidget(clear_);
    col->addLayout(top);

    auto* effect = new QGroupBox(tr("What they change"), this);
    auto* eCol = new QVBoxLayout(effect);
    kl_ = new QLabel(effect);
    kl_->setObjectName(QStringLiteral("ablationKl"));
    kl_->setToolTip(tr("KL(P \u2016 Q) of the next token: P with every head on, Q with the heads off; 0 when "
                       "they change nothing, in nats"));
    changes_ = new QTableWidget(0, 4, effect);
    changes_->setObjectName(QStringLiteral("ablationChanges"));
    changes_->setHorizontalHeaderLabels({tr("Token"), tr("Every head on"), tr("Heads off"), tr("Change")});
    changes_->verticalHeader()->setVisible(false);
    changes_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    changes_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    changes_->setToolTip(tr("The five tokens whose next-token probability moved most"));
    changes_->setMaximumHeight(170);
    outputs_ = new QLabel(effect);
    outputs_->setObjectName(QStringLiteral("ablationOutputs"));
    outputs_->setTextFormat(Qt::RichText);
    outputs_->setWordWrap(true);
    outputs_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    eCol->addWidget(kl_);
    eCol->addWidget(changes_);
    eCol->addWidget(outputs_);
    col->addWidget(effect);

    auto* sweepBox = new QGroupBox(tr("Each head alone"), this);
    auto* sCol = new QVBoxLayout(sweepBox);
    sweep_ = new SweepTable(sweepBox);
    sCol->addWidget(sweep_);
    col->addWidget(sweepBox, 1);

    connect(clear_, &QPushButton::clicked, this, [this] { Q_EMIT ablationChosen({}); });
    connect(sweep_, &SweepTable::headChosen, this, [this](const core::HeadRef& h) {
        core::HeadAblation one;
        one.set(h, true);
        Q_EMIT ablationChosen(one);
    });
    clear();
}

void AblationPage::clear() {
    result_.reset();
    heads_->setText(tr("No text analysed."));
    clear_->setEnabled(false);
    showEffect(nullptr);
    sweep_->setRun(nullptr, {}, {});
}

void AblationPage::setResult(const RunResultPtr& r) {
    result_ = r;
    const auto& snap = *r->snapshot;
    const bool recurrent = r->model && r->model->config().recurrent();
    if (recurrent)
        heads_->setText(tr("This model's attention has one head and no output projection: there are no heads "
                           "to switch off."));
    else if (r->ablation.empty())
        heads_->setText(tr("Every head is on. Ctrl+click a tile on the Attention page, or double-click a row "
                           "of the sweep below, to switch a head off: its output is zeroed before W_O."));
    else
        heads_->setText(
            tr("Switched off: <b>%1</b>").arg(QString::fromStdString(r->ablation.text()).toHtmlEscaped()));
    clear_->setEnabled(!r->ablation.empty());
    showEffect(r->effect.get());
    std::vector<int64_t> src, prefix;
    for (const auto& t : snap.srcTokens)
        src.push_back(t.id);
    const auto initial = snap.tgtTokens.size() - static_cast<std::size_t>(r->step);
    for (std::size_t i = 0; i < initial; ++i)
        prefix.push_back(snap.tgtTokens[i].id);
    sweep_->setRun(r->model, std::move(src), std::move(prefix),
                   r->model ? r->model->config().positions(r->pastMaxLen) : 0);
}

void AblationPage::showEffect(const core::AblationEffect* e) {
    changes_->setRowCount(0);
    if (!e) {
        kl_->setText(tr("With every head on there is nothing to compare."));
        outputs_->clear();
        return;
    }
    kl_->setText(tr("Next token at this step: KL %1 nats").arg(e->kl, 0, 'g', 4));
    for (const auto& c : e->changes) {
        const int row = changes_->rowCount();
        changes_->insertRow(row);
        const double delta = c.after - c.before;
        const QString cells[] = {tokenDisplayText(core::Token{c.id, c.token, false, false}),
                                 QString::number(c.before, 'f', 4), QString::number(c.after, 'f', 4),
                                 (delta >= 0 ? QStringLiteral("+") : QString()) +
                                     QString::number(delta, 'f', 4)};
        for (int i = 0; i < 4; ++i)
            changes_->setItem(row, i, new QTableWidgetItem(cells[i]));
    }
    const QString same = e->firstDifference < 0 ? tr(" (the same)") : QString();
    outputs_->setText(tr("Greedy output, every head on: %1<br>Greedy output, heads off: %2%3")
                          .arg(marked(e->greedyFull, e->firstDifference),
                               marked(e->greedyAblated, e->firstDifference), same));
}

QString AblationPage::headsText() const {
    return heads_->text();
}
QString AblationPage::klText() const {
    return kl_->text();
}
QString AblationPage::outputsText() const {
    return outputs_->text();
}

void AblationPage::startSweep() {
    sweep_->start();
}

bool AblationPage::sweeping() const {
    return sweep_->busy();
}

} // namespace ui
