#pragma once
// A lesson: an ordered list of states of the window, each with a caption, replayed like slides. The file is
// JSON ("format": "attnscope-lesson", "version": 1); README, "Lessons", documents every field. A step names
// only what changes: what it leaves out (the highlight too) it keeps from the step before, so every step
// read is a whole state and Next can restore it after the user has explored.

#include "core/model/AttentionBlock.h"
#include "ui/ColorMap.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

namespace ui {

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

class LessonFile {
public:
    /// The pages a step may name, in the window's order.
    static QStringList tabNames();
    static QString kindName(core::AttentionKind kind);

    /// Reads a lesson. Empty, with a message naming the file, the step and the field, when it is not one.
    static std::optional<Lesson> read(const QString& path, QString* error);
    /// The same from bytes; `path` only names it in messages and anchors relative model folders.
    static std::optional<Lesson> parse(const QByteArray& json, const QString& path, QString* error);
    /// JSON of a lesson, every state written whole (a recorded lesson reads back identically).
    static QByteArray toJson(const Lesson& lesson);
    /// Writes atomically (a failed write leaves the file as it was); false with a message.
    static bool save(const Lesson& lesson, const QString& path, QString* error);

    /// The folder a step's model names: a built-in model's folder under builtinDir, else the path itself
    /// (relative to the lesson's folder).
    static QString modelFolder(const Lesson& lesson, const QString& model, const QString& builtinDir);
};

} // namespace ui
