#pragma once
// Plays a lesson in the window: going to a step has the window's driver bring the window to that step's
// state (WindowDriver), and frames the step's highlights; arrivedAt() says when the whole state is on
// screen and the caption's numbers are read. The user may explore freely after that; going to a step (or
// restore()) brings its state back.
//
// It also holds the lesson being recorded; LessonRecorder records and edits it through edit().

#include "ui/base/Pages.h"
#include "ui/lesson/Lesson.h"
#include "ui/lesson/LessonNumbers.h"

#include <QObject>
#include <QString>

#include <functional>

namespace ui {

class AttentionPage;
class WindowDriver;

/// What of the window a lesson plays on besides its driver; the window fills it in (the player knows no
/// window class).
struct LessonWindow {
    WindowDriver* driver = nullptr; ///< brings the window to each step's state; its parts are the window's
    AttentionPage* attention = nullptr; ///< whose grid and heatmap a step's highlight frames
    QString modelsDir;                  ///< the built-in models, which steps name by their folder's name
};

class LessonPlayer : public QObject {
    Q_OBJECT
public:
    explicit LessonPlayer(LessonWindow window);

    /// Starts a lesson at its first step (an empty one, for recording, goes nowhere).
    void setLesson(Lesson lesson);
    void close();
    bool hasLesson() const { return open_; }
    const Lesson& lesson() const { return lesson_; }
    int index() const { return index_; }
    int count() const { return int(lesson_.steps.size()); }

    /// Brings the window to step `index` (0-based); the same index again restores it after exploring.
    void go(int index);
    void next() { go(index_ + 1); }
    void previous() { go(index_ - 1); }
    void restore() { go(index_); }
    /// The window shows the current step's state (until the user changes it or another step is asked for).
    bool arrived() const { return arrived_; }
    /// The current step's caption with the live numbers, as rich text and as plain text; `missing` lists the
    /// placeholders the window could not fill.
    QString captionHtml(QStringList* missing = nullptr) const;
    QString captionPlain(QStringList* missing = nullptr) const;
    /// The current step's caption before the window is there: its numbers shown as "…" (the window's numbers
    /// now belong to the step before).
    QString captionHtmlOnTheWay() const;
    /// What the drive to the current step waits for now; empty once arrived or failed.
    QString awaiting() const;
    /// What the step's placeholders read now.
    LessonNumbers numbers() const;

    /// Changes the open lesson (a LessonRecorder's edit), opening an empty one first when none is open;
    /// `index` is the current step, which the change may move. Sends lessonChanged.
    void edit(const std::function<void(Lesson&, int& index)>& change);
    /// The window already shows step `index` (it was just recorded from it): arrived there, no drive.
    void settleAt(int index);

Q_SIGNALS:
    /// A lesson was opened, or the open one closed.
    void lessonOpened();
    /// The steps, the title or the file changed (a lesson opened, closed, recorded, edited, saved).
    void lessonChanged();
    /// Going to a step started.
    void moving(int index);
    void arrivedAt(int index);
    /// The step waits for something that takes a while (a training run to reach a step): what it waits for.
    void waiting(int index, const QString& what);
    /// The step's state cannot be reached (a model that does not open, a layer it lacks…): the message says
    /// which step and what.
    void failed(int index, const QString& message);

private:
    void fail(const QString& message);
    bool wantsHeadScores() const;
    /// Frames the current step's highlight: a tile of the grid, a cell of the heatmap, or neither.
    void showHighlight();

    LessonWindow w_;
    Lesson lesson_;
    bool open_ = false;
    int index_ = -1;
    bool arrived_ = false;
    bool driving_ = false; // the driver's drive is this player's, for the current step
};

} // namespace ui
