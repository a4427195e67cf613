#pragma once
// What a window state asks of the Train tab: a run of a preset, started when the tab has none like it, and a
// frame of its scrubber, which may not exist yet while the run trains; and the tab's run and frame as a
// captured state keeps them.

#include "ui/base/WindowState.h"

#include <QCoreApplication>
#include <QString>

namespace ui {

class TrainPage;

class TrainTabDriver {
    Q_DECLARE_TR_FUNCTIONS(TrainTabDriver)
public:
    enum class Reach { There, Waiting, Failed };
    /// Brings the tab towards the state's run and frame: There when it shows them; Waiting while the run has
    /// not got there (`message` says what it waits for, or is empty when a run was just started); Failed with
    /// why it cannot (a preset not offered, a run that ended without an induction head).
    static Reach reach(TrainPage& tab, const WindowState& state, QString* message);
    /// The tab's run and the frame it holds, into a state captured on the Train page.
    static void capture(const TrainPage& tab, WindowState& state);
};

} // namespace ui
