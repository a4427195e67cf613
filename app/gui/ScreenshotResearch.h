#pragma once
// What a screenshot of the Rollout, Ablation, Compare and Logit lens pages needs beyond the window's usual
// options: heads switched off, the colour source, a run pinned at a step (these three are the window's state,
// which the driver brings it to), flow instead of rollout, a sweep and the lens's colour and token, whose
// background jobs are waited for before the picture is taken.

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
    std::string lensColour;             ///< --lens-colour probability|rank|entropy (empty: the page's)
    std::string lensToken;              ///< --lens-token TEXT: the token the Logit lens page follows
};

/// After the window reached its state: the page's flow or rollout and the sweep, their jobs waited for. An
/// error message, or empty.
std::string finishResearch(ui::MainWindow& window, const ResearchShot& shot);

/// Runs the event loop while `busy` holds, two minutes at most; false when it still does (a background job
/// a picture waits for).
bool waitWhile(const std::function<bool()>& busy);
