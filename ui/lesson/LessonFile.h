#pragma once
// A lesson's file: JSON ("format": "attnscope-lesson", "version": 1) read strictly, each step over the one
// before it (LessonStepReader), and written whole, atomically. README, "Lessons", documents every field.

#include "ui/lesson/Lesson.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

#include <optional>

namespace ui {

class LessonFile {
public:
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
    /// Why a step may not open the model folder dir, or empty when it may: a built-in model, a folder
    /// inside the lesson's own folder (links followed), or openDir, the model the user has open.
    static QString modelRefusal(const Lesson& lesson, const QString& dir, const QString& builtinDir,
                                const QString& openDir);
};

} // namespace ui
