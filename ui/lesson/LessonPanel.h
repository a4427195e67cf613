#pragma once
// The lesson panel and the Lesson menu: the lesson's title, "step n of N", the caption with the live
// model's numbers, Previous and Next (Page Up and Page Down wherever the focus is, the keys a presentation
// clicker sends; the arrow keys too while presenting), the list of steps to jump to, and the recording tools
// (record the window's state as a step, edit a caption, move and delete steps, save atomically).
// A dock on the window's right; it stays in the presentation mode, where its caption is what the room reads.

#include <QDockWidget>
#include <QStringList>

class QLabel;
class QListWidget;
class QMenu;
class QPushButton;

namespace ui {

class LessonPlayer;
class LessonRecorder;
class PresentationMode;

class LessonPanel : public QDockWidget {
    Q_OBJECT
public:
    /// lessonsDir: the shipped lessons (listed under Lesson ▸ Built-in Lessons).
    LessonPanel(LessonPlayer* player, LessonRecorder* recorder, const QString& lessonsDir, QWidget* window);

    QMenu* menu() const { return menu_; }
    LessonPlayer* player() const { return player_; }
    LessonRecorder* recorder() const { return recorder_; }
    /// File ▸ Open Lesson… and the Lesson menu's.
    QAction* openAction() const { return open_; }
    /// The arrow keys step through the lesson while the mode is on.
    void setPresentation(PresentationMode* presentation);
    /// Opens a lesson file. On failure the panel shows why, and so does a dialog unless `error` takes it.
    bool openFile(const QString& path, QString* error = nullptr);
    /// Asks what to do with unsaved steps; false when the user cancels (the window stays open).
    bool confirmClose();

    QString captionText() const; ///< the caption as shown (rich text)
    QString positionText() const;
    QString statusText() const;
    QListWidget* stepList() const { return steps_; }
    /// What the step list says for step i: its first line, with the numbers it had when last on screen, or
    /// cut before its first number when it has not been shown yet.
    QString stepLine(int i) const;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void build();
    void appear(); ///< shown beside the views at a fifth of the window's width
    void buildMenu(const QString& lessonsDir);
    void refresh();
    void showCaption();
    void recordStep();
    void editCaption();
    bool saveAs();

    LessonPlayer* player_;
    LessonRecorder* recorder_;
    PresentationMode* presentation_ = nullptr;
    QMenu* menu_ = nullptr;
    QAction* open_ = nullptr;
    QAction* next_ = nullptr;
    QAction* previous_ = nullptr;
    QAction* restore_ = nullptr;
    QAction* record_ = nullptr;
    QAction* save_ = nullptr;
    QAction* close_ = nullptr;
    QLabel* title_ = nullptr;
    QLabel* position_ = nullptr;
    QLabel* caption_ = nullptr;
    QLabel* status_ = nullptr;
    QListWidget* steps_ = nullptr;
    QPushButton* previousButton_ = nullptr;
    QPushButton* nextButton_ = nullptr;
    QPushButton* editButton_ = nullptr;
    QPushButton* upButton_ = nullptr;
    QPushButton* downButton_ = nullptr;
    QPushButton* deleteButton_ = nullptr;
    QStringList shownLines_; // per step, its first line as last shown with live numbers; empty: not yet
};

} // namespace ui
