#pragma once
// What a screenshot of the Rollout, Ablation and Compare pages needs beyond the window's usual options: heads
// switched off, the colour source, a run pinned at a step, flow instead of rollout, a sweep; and waiting for
// their background jobs before the picture is taken.

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

/// Before the steps: picks the colour source, and pins at step 0 when asked. An error message, or empty.
std::string prepareResearch(ui::MainWindow& window, const ResearchShot& shot);
/// After `done` steps: pins the run when --pin-at asks for that step.
void pinIfDue(ui::MainWindow& window, const ResearchShot& shot, long long done);
/// After the steps: switches the heads off (the tokens decoded are kept, as a Ctrl+click keeps them); then,
/// the page shown, flow and the sweep, their jobs waited for. An error message, or empty.
std::string finishResearch(ui::MainWindow& window, const ResearchShot& shot);
