#pragma once
// The live numbers a lesson's captions quote (LessonCaption's placeholders), read from what the window shows
// now: the run on screen, the head shown, the step's highlighted cell, the Inside page's row and the Heads
// page's scores. Nothing is stored: a caption shows the model's own numbers at the moment it is read.

#include "core/analysis/HeadAnalysis.h"
#include "ui/base/ShownAttention.h"
#include "ui/lesson/Lesson.h"
#include "ui/run/InsideResult.h"
#include "ui/run/RunResult.h"

#include <QString>

#include <optional>
#include <vector>

namespace ui {

/// The Train tab's run as captions quote it.
struct LessonTrainingFacts {
    int64_t formed = -1;        ///< the step the best induction score first reached 0.5 (−1: not yet)
    int64_t frameStep = -1;     ///< the step of the frame shown (−1: none)
    double frameLoss = -1;      ///< the loss logged at or before that step (< 0: none yet)
    double frameInduction = -1; ///< the best head's induction score there (< 0: not measured)
    double framePrevious = -1;  ///< the best head's previous-token score there
};

struct LessonNumbers {
    RunResultPtr result;                                   ///< the run on screen
    ShownAttention shown;                                  ///< the kind, layer and head shown
    LessonHighlight highlight;                             ///< the step's cell and tile
    InsideResultPtr inside;                                ///< the Inside page's row (null off that page)
    const std::vector<core::HeadScores>* scores = nullptr; ///< the Heads page's (null or empty: none yet)
    LessonTrainingFacts training;

    /// A placeholder's value as the caption shows it; nothing when it cannot be read now (no cell
    /// highlighted, no Inside row, a cell out of range, scores still being computed).
    std::optional<QString> value(const QString& name, const std::vector<int>& args) const;

    /// A token as a caption quotes it: “casa”, the tokenizer's word-start mark dropped.
    static QString quoted(const std::string& text);
};

} // namespace ui
