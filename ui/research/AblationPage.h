#pragma once
// The Ablation page: which heads are switched off in the run (Ctrl+click a tile on the Attention page), what
// that changes at the current step (the KL of the next-token distribution, the five largest probability
// changes) and in the greedy output, and a sweep that switches each head off alone to find the heads that
// matter. The numbers come with each result from the worker; the sweep runs on its own thread.

#include "core/model/HeadAblation.h"
#include "ui/run/RunResult.h"

#include <QWidget>

class QLabel;
class QPushButton;
class QTableWidget;

namespace ui {

class SweepTable;

class AblationPage : public QWidget {
    Q_OBJECT
public:
    explicit AblationPage(QWidget* parent = nullptr);

    /// Shows the heads off in a result and what they change; the sweep starts from its source and prefix.
    void setResult(const RunResultPtr& result);
    void clear();
    /// Sweeps every head switched off alone from the result shown (the page's Sweep button); busy until done.
    void startSweep();
    bool sweeping() const;
    /// What the page says now (tests): the heads, the KL, the outputs.
    QString headsText() const;
    QString klText() const;
    QString outputsText() const;
    QTableWidget* changes() const { return changes_; }

Q_SIGNALS:
    /// The user asked for these heads to be off (a sweep row, Switch All On).
    void ablationChosen(const core::HeadAblation& ablation);

private:
    void showEffect(const core::AblationEffect* effect);

    RunResultPtr result_;
    QLabel* heads_ = nullptr;
    QPushButton* clear_ = nullptr;
    QLabel* kl_ = nullptr;
    QTableWidget* changes_ = nullptr;
    QLabel* outputs_ = nullptr;
    SweepTable* sweep_ = nullptr;
};

} // namespace ui
