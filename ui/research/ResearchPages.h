#pragma once
// The pages that go past raw weights: Rollout (rollout and flow), Ablation (heads switched off, their effect,
// the sweep), Compare (a pinned run beside the current one) and Logit lens (the stream read at every point),
// with their window-wide actions (colour by
// weight × value, switch every head on, pin). Built and wired here so MainWindow only adds the tabs and
// hands over results.

#include "ui/run/RunResult.h"

#include <QList>
#include <QObject>

class QAction;
class QTabWidget;

namespace ui {

class AblationPage;
class AnalysisController;
class ComparePage;
class LensPage;
class RolloutPage;
class ViewState;

class ResearchPages : public QObject {
    Q_OBJECT
public:
    /// Adds the four pages to `tabs` (in that order, after the tabs already there) and wires them to the
    /// view state, which holds the heads switched off and the colour source.
    ResearchPages(QTabWidget* tabs, ViewState* state, QObject* parent);
    /// The pages follow the analysis: its results, and clearing when there is none.
    void attach(AnalysisController* controller);

    /// Colour by weight × value (Ctrl+Shift+V), Switch All Heads On (Ctrl+Shift+H), Pin Run (Ctrl+Shift+P):
    /// for the View menu and the window, so their keys work wherever the focus is.
    QList<QAction*> actions() const { return actions_; }

    RolloutPage* rollout() const { return rollout_; }
    AblationPage* ablation() const { return ablation_; }
    ComparePage* compare() const { return compare_; }
    LensPage* lens() const { return lens_; }

private:
    void setResult(const RunResultPtr& result);
    void clear();

    RolloutPage* rollout_ = nullptr;
    AblationPage* ablation_ = nullptr;
    ComparePage* compare_ = nullptr;
    LensPage* lens_ = nullptr;
    QList<QAction*> actions_;
};

} // namespace ui
