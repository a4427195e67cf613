#include "app/gui/ScreenshotResearch.h"

#include "core/base/Errors.h"
#include "core/model/HeadAblation.h"
#include "core/model/Model.h"
#include "ui/MainWindow.h"
#include "ui/base/ViewState.h"
#include "ui/research/AblationPage.h"
#include "ui/research/ComparePage.h"
#include "ui/research/ResearchPages.h"
#include "ui/research/RolloutPage.h"
#include "ui/research/SweepTable.h"
#include "ui/run/AnalysisController.h"

#include <QCoreApplication>
#include <QElapsedTimer>

#include <functional>

namespace {

// Runs the event loop while `busy` holds, two minutes at most; false when it still does.
bool waitWhile(const std::function<bool()>& busy) {
    QElapsedTimer waited;
    waited.start();
    while (busy() && waited.elapsed() < 120000)
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
    QCoreApplication::processEvents();
    return !busy();
}

} // namespace

std::string prepareResearch(ui::MainWindow& window, const ResearchShot& shot) {
    if (shot.valueWeighted)
        window.viewState()->setValueWeighted(true);
    if (!window.controller()->waitUntilIdle())
        return "the value-weighted run did not finish in time";
    pinIfDue(window, shot, 0);
    return {};
}

void pinIfDue(ui::MainWindow& window, const ResearchShot& shot, long long done) {
    if (shot.pinAt == done)
        window.research()->compare()->pin();
}

std::string finishResearch(ui::MainWindow& window, const ResearchShot& shot) {
    // After the steps and the pin, as a Ctrl+click on a tile does: the tokens decoded so far are kept and
    // run again with the heads off.
    if (!shot.ablate.empty()) {
        const auto kind = core::attentionKindNamed(shot.ablateKind);
        if (!kind || *kind == core::AttentionKind::Pooling)
            return "--ablate-kind \"" + shot.ablateKind + "\" is not one of encoder, decoder, cross";
        core::HeadAblation heads;
        try {
            core::addAblation(heads, shot.ablate, *kind, window.model()->config());
        } catch (const core::InputError& e) {
            return std::string("--ablate: ") + e.what();
        }
        window.controller()->setAblation(heads);
        if (!window.controller()->waitUntilIdle())
            return "the run with the heads switched off did not finish in time";
    }
    auto* research = window.research();
    auto* rollout = research->rollout();
    // The Rollout page takes the kind the window shows (--kind), where it has one to compose.
    rollout->choose(window.viewState()->kind(),
                    shot.flow ? ui::RolloutPage::Method::Flow : ui::RolloutPage::Method::Rollout);
    if (!waitWhile([rollout] { return rollout->busy(); }))
        return "the rollout did not finish in time";
    if (shot.sweep) {
        auto* sweep = research->ablation()->sweep();
        sweep->start();
        if (!waitWhile([sweep] { return sweep->busy(); }))
            return "the sweep did not finish in time";
    }
    return {};
}
