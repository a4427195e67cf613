#pragma once
// What a lesson step asks of the Train tab: a run of a preset, started when the tab has none like it, and a
// frame of its scrubber, which may not exist yet while the run trains; what captions quote of that run; and
// the tab's state as a recorded step keeps it.

#include "ui/lesson/Lesson.h"
#include "ui/lesson/LessonNumbers.h"

#include <QCoreApplication>
#include <QString>

namespace ui {

class TrainPage;

class LessonTrainTab {
    Q_DECLARE_TR_FUNCTIONS(LessonTrainTab)
public:
    enum class Reach { There, Waiting, Failed };
    /// Brings the tab towards the state's run and frame: There when it shows them; Waiting while the run has
    /// not got there (`message` says what it waits for, or is empty when a run was just started); Failed with
    /// why it cannot (a preset not offered, a run that ended without an induction head).
    static Reach reach(TrainPage& tab, const LessonState& state, QString* message);
    /// The run's numbers captions quote: the step its head formed, the frame shown and its log row.
    static LessonTrainingFacts facts(const TrainPage& tab);
    /// The tab's run and the frame it holds, into a state being recorded on the Train page.
    static void capture(const TrainPage& tab, LessonState& state);
};

} // namespace ui
