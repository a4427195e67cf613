#pragma once
// A lesson: an ordered list of states of the window, each with a caption, replayed like slides. The file is
// JSON ("format": "attnscope-lesson", "version": 1); README, "Lessons", documents every field. A step names
// only what changes: what it leaves out (the highlight too) it keeps from the step before, so every step
// read is a whole state and Next can restore it after the user has explored. A step's state is the
// window's (WindowState); version 1 keeps the model, text, step, page, kind, layer, head, mark, scale,
// colour source, Inside stage and Train-tab run of it, and a step decodes greedily with every head on.

#include "ui/base/WindowState.h"

#include <QString>

#include <vector>

namespace ui {

/// What a step points at besides the state: a cell of the heatmap, or a tile of the grid.
struct LessonHighlight {
    int cellRow = -1, cellColumn = -1; ///< query row and key column of the shown head (−1: none)
    int tileLayer = -1, tileHead = -1; ///< a tile of the grid (−1: none); tileHead may be core::kMeanHead
    bool hasCell() const { return cellRow >= 0 && cellColumn >= 0; }
    bool hasTile() const { return tileLayer >= 0; }
    bool operator==(const LessonHighlight& o) const;
};

struct LessonStep {
    WindowState state;
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
