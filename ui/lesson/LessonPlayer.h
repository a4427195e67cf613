#pragma once
// Plays a lesson in the window: going to a step brings the window to that step's state (the model opened,
// the text analysed, decoded greedily to the step, the page, kind, layer, head, mark, scale, colour source
// and Inside stage set, the highlights framed, a Train-tab run started and its frame shown, waiting for the
// run to get there), one request at a time, each taken when the one before has
// landed; arrivedAt() says when the whole state is on screen and the caption's numbers are read. The user
// may explore freely after that; going to a step (or restore()) brings its state back.
//
// It also holds the lesson being recorded: record() turns the window's state into a step.

#include "ui/base/Pages.h"
#include "ui/lesson/Lesson.h"
#include "ui/lesson/LessonNumbers.h"

#include <QObject>
#include <QString>

#include <functional>

namespace ui {

class AnalysisController;
class AttentionPage;
class HeadTable;
class InsideView;
class LessonSpotlight;
class ModelOpener;
class TrainPage;
class ViewState;

/// What of the window a lesson drives; the window fills it in (the player knows no window class).
struct LessonWindow {
    QObject* owner = nullptr;
    ModelOpener* opener = nullptr;
    AnalysisController* controller = nullptr;
    ViewState* state = nullptr;
    AttentionPage* attention = nullptr;
    InsideView* inside = nullptr;
    HeadTable* heads = nullptr;
    TrainPage* train = nullptr;
    QString modelsDir; ///< the built-in models, which steps name by their folder's name
    std::function<QString()> sourceText;
    std::function<void(const QString&)> setSourceText;
    std::function<Page()> currentPage;
    std::function<void(Page)> showPage; ///< does nothing for a page the model hides
    std::function<QString()> lastError; ///< why the last model did not open
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
    /// What the step's placeholders read now.
    LessonNumbers numbers() const;

    /// The window's state now, as a step records it (the model by its built-in name when it is one).
    LessonState captureState() const;
    /// Records the window's state as a step after the current one (the first of a new lesson when none is
    /// open) with this caption; false with a message when the caption is malformed.
    bool record(const QString& caption, QString* error);
    bool setCaption(int index, const QString& caption, QString* error);
    void moveStep(int from, int to);
    void removeStep(int index);
    void setTitle(const QString& title);
    bool modified() const { return modified_; }
    bool save(const QString& path, QString* error);

Q_SIGNALS:
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
    void schedule();
    void reconcile();
    /// Sets the page and the view; false when the step asks for what the model lacks (the message is sent).
    bool applyView();
    void fail(const QString& message);
    bool wantsHeadScores() const;
    /// Starts the step's training run when the Train tab has none like it, and shows its frame; false while
    /// that is still on its way (or failed: the message is sent).
    bool reconcileTraining();

    LessonWindow w_;
    Lesson lesson_;
    bool open_ = false;
    int index_ = -1;
    bool arrived_ = false;
    bool scheduled_ = false;
    bool modified_ = false;
    int requests_ = 0; // requests sent for the current step: a guard against a state that never settles
    LessonSpotlight* gridSpot_ = nullptr;
    LessonSpotlight* heatSpot_ = nullptr;
};

} // namespace ui
