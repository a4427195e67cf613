#include "ui/research/ResearchPages.h"

#include "ui/base/ViewState.h"
#include "ui/research/AblationPage.h"
#include "ui/research/ComparePage.h"
#include "ui/research/LensPage.h"
#include "ui/research/RolloutPage.h"
#include "ui/run/AnalysisController.h"

#include <QAction>
#include <QCheckBox>
#include <QTabWidget>

namespace ui {

ResearchPages::ResearchPages(QTabWidget* tabs, ViewState* state, QObject* parent) : QObject(parent) {
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
    lens_ = new LensPage(tabs);
    lens_->setObjectName(QStringLiteral("lensPage"));
    tabs->setTabToolTip(tabs->addTab(lens_, tr("Lo&git lens")),
                        tr("The prediction forming layer by layer: the stream after every sublayer read "
                           "through the model's final norm and unembedding (Alt+0)"));

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

    // The colour source: the checkbox, the action and the view state move together (the analysis follows
    // the view state, and computes the value-weighted blocks only while they are asked for).
    connect(weighted, &QAction::toggled, state, &ViewState::setValueWeighted);
    connect(state, &ViewState::valueWeightedChanged, weighted, &QAction::setChecked);
    // Heads off, besides a tile Ctrl+clicked: a sweep row, Switch All On.
    connect(ablation_, &AblationPage::ablationChosen, state, &ViewState::setHeadsOff);
    connect(allOn, &QAction::triggered, state, [state] { state->setHeadsOff({}); });
    connect(pin, &QAction::triggered, compare_, &ComparePage::pin);
    connect(state, &ViewState::shownChanged, compare_, &ComparePage::setShown);
    compare_->setShown(state->shown());
}

void ResearchPages::attach(AnalysisController* controller) {
    connect(controller, &AnalysisController::resultChanged, this, &ResearchPages::setResult);
    connect(controller, &AnalysisController::cleared, this, &ResearchPages::clear);
}

void ResearchPages::setResult(const RunResultPtr& result) {
    rollout_->setResult(result);
    ablation_->setResult(result);
    compare_->setResult(result);
    lens_->setResult(result);
}

void ResearchPages::clear() {
    rollout_->clear();
    ablation_->clear();
    compare_->clear();
    lens_->clear();
}

} // namespace ui
