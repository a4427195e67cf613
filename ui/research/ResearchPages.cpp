#include "ui/research/ResearchPages.h"

#include "ui/attention/AttentionPage.h"
#include "ui/base/ViewState.h"
#include "ui/research/AblationPage.h"
#include "ui/research/ComparePage.h"
#include "ui/research/RolloutPage.h"
#include "ui/run/AnalysisController.h"

#include <QAction>
#include <QCheckBox>
#include <QTabWidget>

namespace ui {

ResearchPages::ResearchPages(QTabWidget* tabs, ViewState* state, AnalysisController* controller,
                             AttentionPage* attention, QObject* parent)
    : QObject(parent), controller_(controller) {
    rollout_ = new RolloutPage(tabs);
    rollout_->setObjectName(QStringLiteral("rolloutPage"));
    tabs->setTabToolTip(tabs->addTab(rollout_, tr("&Rollout")),
                        tr("What each output draws from each input once every layer is composed: attention "
                           "rollout and attention flow (Alt+7)"));
    ablation_ = new AblationPage(tabs);
    ablation_->setObjectName(QStringLiteral("ablationPage"));
    tabs->setTabToolTip(
        tabs->addTab(ablation_, tr("A&blation")),
        tr("Heads switched off (Ctrl+click a tile), what that changes, and each head switched "
           "off alone (Alt+8)"));
    compare_ = new ComparePage(tabs);
    compare_->setObjectName(QStringLiteral("comparePage"));
    tabs->setTabToolTip(tabs->addTab(compare_, tr("&Compare")),
                        tr("A pinned run beside the one on screen, and their difference (Alt+9)"));

    auto* weighted = new QAction(tr("Colour by Weight \u00d7 &Value"), this);
    weighted->setObjectName(QStringLiteral("valueWeightedAction"));
    weighted->setCheckable(true);
    weighted->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_V));
    auto* allOn = new QAction(tr("Switch All &Heads On"), this);
    allOn->setObjectName(QStringLiteral("allHeadsOnAction"));
    allOn->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_H));
    auto* pin = new QAction(tr("&Pin Run for Compare"), this);
    pin->setObjectName(QStringLiteral("pinAction"));
    pin->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P));
    actions_ = {weighted, allOn, pin};

    // The colour source: the checkbox, the action and the view state move together; the worker computes
    // the value-weighted blocks only while they are asked for.
    connect(weighted, &QAction::toggled, state, &ViewState::setValueWeighted);
    connect(state, &ViewState::valueWeightedChanged, weighted, &QAction::setChecked);
    connect(state, &ViewState::valueWeightedChanged, controller, &AnalysisController::setValueWeighted);
    // Heads off: a tile Ctrl+clicked, a sweep row, Switch All On.
    connect(attention, &AttentionPage::headToggled, controller, [controller](const core::HeadRef& h) {
        auto a = controller->ablation();
        a.toggle(h);
        controller->setAblation(a);
    });
    connect(ablation_, &AblationPage::ablationChosen, controller, &AnalysisController::setAblation);
    connect(allOn, &QAction::triggered, controller, [controller] { controller->setAblation({}); });
    connect(pin, &QAction::triggered, compare_, &ComparePage::pin);
    connect(state, &ViewState::shownChanged, compare_, &ComparePage::setShown);
    compare_->setShown(state->shown());
}

void ResearchPages::setResult(const RunResultPtr& result) {
    rollout_->setResult(result);
    ablation_->setResult(result);
    compare_->setResult(result);
}

void ResearchPages::clear() {
    rollout_->clear();
    ablation_->clear();
    compare_->clear();
}

} // namespace ui
