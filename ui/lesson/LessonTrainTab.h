#pragma once
// What a lesson's captions quote of the Train tab's run (the window's state of the tab is TrainTabDriver's).

#include "ui/lesson/LessonNumbers.h"

namespace ui {

class TrainPage;

class LessonTrainTab {
public:
    /// The run's numbers captions quote: the step its head formed, the frame shown and its log row.
    static LessonTrainingFacts facts(const TrainPage& tab);
};

} // namespace ui
