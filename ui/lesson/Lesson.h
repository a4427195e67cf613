#pragma once
// A lesson: an ordered list of states of the window, each with a caption, replayed like slides. The file is
// JSON ("format": "attnscope-lesson", "version": 1); README, "Lessons", documents every field. A step names
// only what changes: what it leaves out (the highlight too) it keeps from the step before, so every step
// read is a whole state and Next can restore it after the user has explored.

#include "core/model/AttentionBlock.h"
#include "ui/base/ColorMap.h"

#include <QString>

#include <vector>

namespace ui {

/// A run of the Train tab a step wants: started from a preset (the tab's task list) when the tab has no
/// such run yet, so a lesson can train a model in front of the class.
struct LessonTraining {
    QString preset;    ///< the recipe's name ("induction"); empty: the step wants no run
    int steps = 0;     ///< steps to train; 0: the recipe's own
    bool tiny = false; ///< the Train tab's tiny size rather than the recipe's
    bool wanted() const { return !preset.isEmpty(); }
    bool operator==(const LessonTraining& o) const {
        return preset == o.preset && steps == o.steps && tiny == o.tiny;
    }
};

/// Everything of the window a step restores.
struct LessonState {
    QString model; ///< a built-in model's name ("en-es"), or a folder (relative to the lesson's file)
    QString text;  ///< the source (a language model's prompt)
    int step = 0;  ///< tokens decoded greedily after the analysis
    QString tab = QStringLiteral("attention");               ///< a page: pageName()
    core::AttentionKind kind = core::AttentionKind::Decoder; ///< every Transformer has it
    int layer = 0;
    int head = 0;        ///< core::kMeanHead for the mean over heads
    int markRow = -1;    ///< a query row marked (−1: none)
    int markColumn = -1; ///< a key column marked (−1: none); at most one of the two
    ScaleMode scale = ScaleMode::Fixed;
    bool valueWeighted = false; ///< colour by weight × value
    /// The Inside page's stage brought into view and framed, 1–5 (0: none). Its row is the marked one.
    int insideStage = 0;
    LessonTraining train;
    /// The Train tab's frame of the probe's attention: the newest, the first at which the run's best
    /// induction score has reached 0.5, or the last at or before a step.
    static constexpr int kLatestFrame = -1;
    static constexpr int kFormedFrame = -2;
    int frame = kLatestFrame;

    bool operator==(const LessonState& o) const;
    bool operator!=(const LessonState& o) const { return !(*this == o); }
};

/// What a step points at besides the state: a cell of the heatmap, or a tile of the grid.
struct LessonHighlight {
    int cellRow = -1, cellColumn = -1; ///< query row and key column of the shown head (−1: none)
    int tileLayer = -1, tileHead = -1; ///< a tile of the grid (−1: none); tileHead may be core::kMeanHead
    bool hasCell() const { return cellRow >= 0 && cellColumn >= 0; }
    bool hasTile() const { return tileLayer >= 0; }
    bool operator==(const LessonHighlight& o) const;
};

struct LessonStep {
    LessonState state;
    /// Plain text: *emphasis*, **strong**, a blank line for a paragraph, and {placeholders} filled with the
    /// live model's numbers (LessonCaption).
    QString caption;
    LessonHighlight highlight;
    bool operator==(const LessonStep& o) const;
};

struct Lesson {
    static constexpr int kVersion = 1;
    QString title;
    QString description;
    std::vector<LessonStep> steps;
    /// The file it was read from or last saved to; relative model folders are read from its folder.
    QString path;
};

} // namespace ui
