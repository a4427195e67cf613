#include "ui/window/TrainTabDriver.h"

#include "ui/train/TrainPage.h"

namespace ui {

TrainTabDriver::Reach TrainTabDriver::reach(TrainPage& t, const WindowState& s, QString* message) {
    const auto fail = [message](const QString& why) {
        *message = why;
        return Reach::Failed;
    };
    message->clear();
    if (s.train.wanted() && (t.runPreset() != s.train.preset || t.runTiny() != s.train.tiny ||
                             (s.train.steps > 0 && t.runSteps() != s.train.steps))) {
        QString error;
        if (!t.startPreset(s.train.preset, s.train.tiny, s.train.steps, &error))
            return fail(tr("cannot train: %1").arg(error));
        return Reach::Waiting; // the tab's progress brings the driver back
    }
    if (s.tab != QLatin1String("train"))
        return Reach::There;
    if (s.frame == WindowState::kLatestFrame) {
        if (t.frames() > 0)
            t.showFrame(t.frames() - 1); // and the tab follows the newest from there
        return Reach::There;
    }
    int frame = -1;
    if (s.frame == WindowState::kFormedFrame) {
        const auto formed = t.formedStep();
        if (formed < 0 && !t.training())
            return fail(t.lastStep() > 0
                            ? tr("the run ended at step %1 before an induction head formed (no best "
                                 "induction score of 0.5)")
                                  .arg(t.lastStep())
                            : tr("the Train tab has no run whose induction head could form"));
        frame = formed < 0 ? -1 : t.frameAtOrAfter(formed);
        if (frame < 0 && formed >= 0 && !t.training())
            frame = t.frames() - 1; // a run stopped before its next frame: its last is the nearest
        if (frame < 0 && t.training())
            *message =
                tr("Training: waiting for an induction head to form (step %1 so far)…").arg(t.lastStep());
    } else {
        if (t.training() && t.frameAtOrAfter(s.frame) < 0) {
            *message = tr("Training: waiting for step %1 (step %2 so far)…").arg(s.frame).arg(t.lastStep());
            return Reach::Waiting;
        }
        frame = t.frameAtOrBefore(s.frame);
    }
    if (frame < 0)
        return t.training() ? Reach::Waiting : fail(tr("the Train tab has no frame for this step"));
    t.holdFrame(frame); // a frame of a given step stays as newer ones arrive
    return Reach::There;
}

void TrainTabDriver::capture(const TrainPage& t, WindowState& s) {
    // Only a step recorded on the Train tab is about its run: a run trained earlier in the session must not
    // follow every step recorded after it (replayed, each would ask for it again).
    if (s.tab != QLatin1String("train"))
        return;
    if (!t.runPreset().isEmpty())
        s.train = {t.runPreset(), int(t.runSteps()), t.runTiny()};
    if (t.frames() > 0 && t.shownFrame() != t.frames() - 1)
        s.frame = int(t.frameStep(t.shownFrame()));
}

} // namespace ui
