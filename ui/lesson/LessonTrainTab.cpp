#include "ui/lesson/LessonTrainTab.h"

#include "ui/train/TrainPage.h"

namespace ui {

LessonTrainingFacts LessonTrainTab::facts(const TrainPage& t) {
    LessonTrainingFacts f;
    f.formed = t.formedStep();
    f.frameStep = t.frameStep(t.shownFrame());
    if (const auto row = t.rowAt(f.frameStep); row && f.frameStep >= 0) {
        f.frameLoss = row->loss;
        f.frameInduction = row->induction;
        f.framePrevious = row->previous;
    }
    return f;
}

} // namespace ui
