#pragma once
// Records a lesson from the window: the window's state as a step after the current one (what a lesson file
// keeps of it), captions, the steps' order, the title, and saving, into the lesson its LessonPlayer holds
// and plays.

#include "ui/base/WindowState.h"

#include <QObject>
#include <QString>

namespace ui {

class LessonPlayer;
class WindowDriver;

class LessonRecorder : public QObject {
    Q_OBJECT
public:
    /// modelsDir: the built-in models, which steps name by their folder's name.
    LessonRecorder(LessonPlayer* player, WindowDriver* driver, QString modelsDir);

    /// The window's state now, as a step records it (the model by its built-in name when it is one).
    WindowState captureState() const;
    /// Records the window's state as a step after the current one (the first of a new lesson when none is
    /// open) with this caption; false with a message when the caption is malformed.
    bool record(const QString& caption, QString* error);
    bool setCaption(int index, const QString& caption, QString* error);
    void moveStep(int from, int to);
    void removeStep(int index);
    void setTitle(const QString& title);
    /// Something was recorded or edited since the lesson was opened or last saved.
    bool modified() const { return modified_; }
    bool save(const QString& path, QString* error);

private:
    LessonPlayer* player_;
    WindowDriver* driver_;
    QString modelsDir_;
    bool modified_ = false;
};

} // namespace ui
