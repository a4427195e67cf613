#include "app/gui/ScreenshotResearch.h"

#include "ui/MainWindow.h"
#include "ui/base/ViewState.h"
#include "ui/research/AblationPage.h"
#include "ui/research/LensPage.h"
#include "ui/research/ResearchPages.h"
#include "ui/research/RolloutPage.h"

#include <QCoreApplication>
#include <QElapsedTimer>

#include <functional>

bool waitWhile(const std::function<bool()>& busy) {
    QElapsedTimer waited;
    waited.start();
    while (busy() && waited.elapsed() < 120000)
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
    QCoreApplication::processEvents();
    return !busy();
}

std::string finishResearch(ui::MainWindow& window, const ResearchShot& shot) {
    auto* research = window.research();
    auto* rollout = research->rollout();
    // The Rollout page takes the kind the window shows (--kind), where it has one to compose.
    rollout->choose(window.viewState()->kind(),
                    shot.flow ? ui::RolloutPage::Method::Flow : ui::RolloutPage::Method::Rollout);
    if (!waitWhile([rollout] { return rollout->busy(); }))
        return "the rollout did not finish in time";
    if (shot.sweep) {
        auto* ablation = research->ablation();
        ablation->startSweep();
        if (!waitWhile([ablation] { return ablation->sweeping(); }))
            return "the sweep did not finish in time";
    }
    auto* lens = research->lens();
    if (!shot.lensColour.empty())
        lens->setColour(shot.lensColour == "rank"      ? ui::LensPage::Colour::Rank
                        : shot.lensColour == "entropy" ? ui::LensPage::Colour::Entropy
                                                       : ui::LensPage::Colour::Probability);
    if (!shot.lensToken.empty() && !lens->followToken(QString::fromStdString(shot.lensToken)))
        return "--lens-token: " + lens->statusText().toStdString();
    if (!waitWhile([lens] { return lens->busy(); }))
        return "the logit lens did not finish in time";
    return {};
}
