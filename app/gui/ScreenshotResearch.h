#pragma once
// What a screenshot of the Rollout, Ablation and Compare pages needs beyond the window's usual options: heads
// switched off, the colour source, a run pinned at a step (these three are the window's state, which the
// driver brings it to), flow instead of rollout and a sweep, whose background jobs are waited for before the
// picture is taken.

#include <functional>
#include <string>

namespace ui {
class MainWindow;
}

struct ResearchShot {
    std::string ablate;                 ///< --ablate LIST (empty: every head on)
    std::string ablateKind = "decoder"; ///< --ablate-kind
    bool valueWeighted = false;         ///< --value-weighted
    bool flow = false;                  ///< --flow: the Rollout page shows flow
    bool sweep = false;                 ///< --sweep: the Ablation page sweeps every head
    long long pinAt = -1;               ///< --pin-at N: pin the run after N steps (the Compare page's A)
};

/// After the window reached its state: the page's flow or rollout and the sweep, their jobs waited for. An
/// error message, or empty.
std::string finishResearch(ui::MainWindow& window, const ResearchShot& shot);

/// Runs the event loop while `busy` holds, two minutes at most; false when it still does (a background job
/// a picture waits for).
bool waitWhile(const std::function<bool()>& busy);
