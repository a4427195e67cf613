#pragma once
// One step of a lesson file read over the step before it: what the step names changes, the rest (the
// highlight too) stays, so every step read is a whole state. Every field is checked; a bad one is refused
// with a message naming the step (from 1, as the player counts) and the field.

#include "ui/lesson/Lesson.h"

#include <QString>
#include <QStringList>

class QJsonObject;

namespace ui {

/// Why a lesson file was refused: the step and the field (the file's name is added by LessonFile).
struct LessonReadError {
    QString message;
};

class LessonStepReader {
public:
    /// Step `index` (0-based) of a lesson from its JSON object. Throws LessonReadError.
    static LessonStep read(const QJsonObject& o, int index, const LessonStep& before);
    /// How the file names a colour scale: "fixed", "per-head", "log".
    static const char* scaleName(ScaleMode mode);
    /// How it names an attention kind: "encoder", "decoder", "cross", "pooling".
    static QString kindName(core::AttentionKind kind);
    /// The pages a step may name, in the window's order.
    static QStringList tabNames();
};

} // namespace ui
