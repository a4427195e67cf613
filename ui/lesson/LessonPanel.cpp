#include "ui/lesson/LessonPanel.h"

#include "ui/base/AppSettings.h"
#include "ui/base/PresentationMode.h"
#include "ui/lesson/LessonCaption.h"
#include "ui/lesson/LessonFile.h"
#include "ui/lesson/LessonPlayer.h"
#include "ui/lesson/LessonRecorder.h"

#include <QAbstractSpinBox>
#include <QAction>
#include <QApplication>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMainWindow>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QTextEdit>
#include <QVBoxLayout>

#include <optional>
#include <vector>

namespace ui {

LessonPanel::LessonPanel(LessonPlayer* player, LessonRecorder* recorder, const QString& lessonsDir,
                         QWidget* window)
    : QDockWidget(tr("Lesson"), window), player_(player), recorder_(recorder) {
    setObjectName(QStringLiteral("lessonPanel"));
    setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    build();
    buildMenu(lessonsDir);
    connect(player_, &LessonPlayer::lessonChanged, this, [this] {
        shownLines_.clear(); // steps moved, edited or another lesson: their numbers are to be read again
        refresh();
    });
    // The step's own caption at once, greyed with its numbers left out until the window is there: the
    // window's numbers still belong to the step before.
    connect(player_, &LessonPlayer::moving, this, [this](int) {
        refresh();
        caption_->setText(player_->captionHtmlOnTheWay());
        caption_->setEnabled(false);
        status_->setText(tr("Getting the window there…"));
    });
    connect(player_, &LessonPlayer::arrivedAt, this, [this](int i) {
        while (shownLines_.size() < player_->count())
            shownLines_.append(QString());
        if (i >= 0 && i < player_->count())
            shownLines_[i] = player_->captionPlain().section(QLatin1Char('\n'), 0, 0);
        refresh();
        showCaption();
    });
    connect(player_, &LessonPlayer::waiting, this,
            [this](int, const QString& what) { status_->setText(what); });
    connect(player_, &LessonPlayer::failed, this, [this](int, const QString& message) {
        refresh();
        caption_->setEnabled(true);
        status_->setText(message);
    });
    refresh();
    hide(); // until a lesson is opened or recorded
}

void LessonPanel::build() {
    auto* body = new QWidget(this);
    auto* col = new QVBoxLayout(body);
    title_ = new QLabel(body);
    title_->setObjectName(QStringLiteral("lessonTitle"));
    title_->setWordWrap(true);
    title_->setTextFormat(Qt::RichText);
    position_ = new QLabel(body);
    position_->setObjectName(QStringLiteral("lessonPosition"));
    caption_ = new QLabel(body);
    caption_->setObjectName(QStringLiteral("lessonCaption"));
    caption_->setWordWrap(true);
    caption_->setTextFormat(Qt::RichText);
    caption_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    caption_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    // The window's font, so the presentation mode's larger one reaches the caption a room reads.
    caption_->setMinimumWidth(260);
    status_ = new QLabel(body);
    status_->setObjectName(QStringLiteral("lessonStatus"));
    status_->setWordWrap(true);
    status_->setStyleSheet(QStringLiteral("color: #7b5a00;"));

    auto* nav = new QHBoxLayout;
    previousButton_ = new QPushButton(tr("◀ Previous"), body);
    previousButton_->setToolTip(tr("The step before (Page Up)"));
    nextButton_ = new QPushButton(tr("Next ▶"), body);
    nextButton_->setToolTip(tr("The next step (Page Down); the window returns to the lesson's state"));
    nav->addWidget(previousButton_);
    nav->addWidget(nextButton_);

    steps_ = new QListWidget(body);
    steps_->setObjectName(QStringLiteral("lessonSteps"));
    steps_->setToolTip(tr("Click a step (or press Enter on it) to go there"));
    steps_->setTextElideMode(Qt::ElideRight);
    steps_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);

    auto* edit = new QHBoxLayout;
    editButton_ = new QPushButton(tr("Edit…"), body);
    editButton_->setToolTip(tr("Edit the chosen step's caption"));
    upButton_ = new QPushButton(tr("Up"), body);
    upButton_->setToolTip(tr("Move the chosen step earlier"));
    downButton_ = new QPushButton(tr("Down"), body);
    downButton_->setToolTip(tr("Move the chosen step later"));
    deleteButton_ = new QPushButton(tr("Delete"), body);
    deleteButton_->setToolTip(tr("Delete the chosen step"));
    for (auto* b : {editButton_, upButton_, downButton_, deleteButton_})
        edit->addWidget(b);

    col->addWidget(title_);
    col->addWidget(position_);
    col->addWidget(caption_, 1);
    col->addWidget(status_);
    col->addLayout(nav);
    col->addWidget(steps_);
    col->addLayout(edit);
    setWidget(body);

    connect(previousButton_, &QPushButton::clicked, player_, &LessonPlayer::previous);
    connect(nextButton_, &QPushButton::clicked, player_, &LessonPlayer::next);
    // A double-click is a click and an activation: the second asks for the step already on its way.
    const auto jump = [this](QListWidgetItem* item) {
        const int row = steps_->row(item);
        if (row != player_->index() || player_->arrived())
            player_->go(row);
    };
    connect(steps_, &QListWidget::itemActivated, this, jump);
    connect(steps_, &QListWidget::itemClicked, this, jump);
    connect(editButton_, &QPushButton::clicked, this, &LessonPanel::editCaption);
    connect(upButton_, &QPushButton::clicked, this, [this] {
        const int i = steps_->currentRow();
        recorder_->moveStep(i, i - 1);
        steps_->setCurrentRow(std::max(i - 1, 0));
    });
    connect(downButton_, &QPushButton::clicked, this, [this] {
        const int i = steps_->currentRow();
        recorder_->moveStep(i, i + 1);
        steps_->setCurrentRow(std::min(i + 1, player_->count() - 1));
    });
    connect(deleteButton_, &QPushButton::clicked, this,
            [this] { recorder_->removeStep(steps_->currentRow()); });
}

void LessonPanel::buildMenu(const QString& lessonsDir) {
    menu_ = new QMenu(tr("&Lesson"), parentWidget());
    auto* window = parentWidget();
    open_ = new QAction(tr("Open &Lesson…"), this);
    open_->setObjectName(QStringLiteral("openLessonAction"));
    open_->setToolTip(tr("Open a lesson file: steps of the window, each with a caption"));
    connect(open_, &QAction::triggered, this, [this] {
        const QString path = QFileDialog::getOpenFileName(parentWidget(), tr("Open Lesson"),
                                                          AppSettings::exportDir(), tr("Lessons (*.json)"));
        if (!path.isEmpty())
            openFile(path);
    });
    menu_->addAction(open_);
    auto* builtin = menu_->addMenu(tr("&Built-in Lessons"));
    const auto files = QDir(lessonsDir).entryInfoList({QStringLiteral("*.json")}, QDir::Files, QDir::Name);
    for (const auto& f : files) {
        QString title = f.completeBaseName();
        if (const auto lesson = LessonFile::read(f.absoluteFilePath(), nullptr))
            title = lesson->title;
        builtin->addAction(title, this, [this, path = f.absoluteFilePath()] { openFile(path); });
    }
    builtin->setEnabled(!files.isEmpty());
    menu_->addSeparator();
    next_ = menu_->addAction(tr("&Next Step"), player_, &LessonPlayer::next);
    next_->setShortcut(QKeySequence(Qt::Key_PageDown));
    previous_ = menu_->addAction(tr("&Previous Step"), player_, &LessonPlayer::previous);
    previous_->setShortcut(QKeySequence(Qt::Key_PageUp));
    restore_ = menu_->addAction(tr("Back to &This Step"), player_, &LessonPlayer::restore);
    restore_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Backspace));
    restore_->setToolTip(tr("After exploring: the window returns to the step's state"));
    menu_->addSeparator();
    record_ = menu_->addAction(tr("&Record Step…"), this, &LessonPanel::recordStep);
    record_->setObjectName(QStringLiteral("recordStepAction"));
    record_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R));
    record_->setToolTip(tr("The window's state now becomes a step after the current one, with a caption you "
                           "type"));
    save_ = menu_->addAction(tr("&Save Lesson As…"), this, &LessonPanel::saveAs);
    save_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S));
    close_ = menu_->addAction(tr("&Close Lesson"), this, [this] {
        if (confirmClose()) {
            player_->close();
            hide();
        }
    });
    // Their keys work wherever the focus is, as the window's other shortcuts do.
    for (auto* a : {next_, previous_, restore_, record_, save_})
        window->addAction(a);
}

void LessonPanel::setPresentation(PresentationMode* presentation) {
    presentation_ = presentation;
    qApp->installEventFilter(this);
}

bool LessonPanel::eventFilter(QObject* watched, QEvent* event) {
    // While presenting a lesson, a clicker's arrow keys turn the slides wherever the focus is (a tab switch
    // leaves it on the Model box, whose arrows would change the model under the class), except in a field
    // being typed in, where they move the cursor.
    if (event->type() == QEvent::KeyPress && presentation_ && presentation_->active() &&
        player_->hasLesson() && player_->count() > 0) {
        auto* key = static_cast<QKeyEvent*>(event);
        auto* focus = QApplication::focusWidget();
        const auto* line = qobject_cast<QLineEdit*>(focus);
        const auto* text = qobject_cast<QTextEdit*>(focus);
        const bool typing =
            (line && !line->isReadOnly() && !qobject_cast<QAbstractSpinBox*>(line->parent())) ||
            (text && !text->isReadOnly());
        if (!typing && key->modifiers() == Qt::NoModifier && watched == focus) {
            if (key->key() == Qt::Key_Right || key->key() == Qt::Key_Down) {
                player_->next();
                return true;
            }
            if (key->key() == Qt::Key_Left || key->key() == Qt::Key_Up) {
                player_->previous();
                return true;
            }
        }
    }
    return QDockWidget::eventFilter(watched, event);
}

bool LessonPanel::openFile(const QString& path, QString* error) {
    if (!confirmClose())
        return false;
    QString why;
    auto lesson = LessonFile::read(path, &why);
    if (!lesson) {
        status_->setText(why);
        if (error)
            *error = why; // the caller says it
        else
            QMessageBox::warning(parentWidget(), tr("Open Lesson"), why);
        return false;
    }
    appear();
    player_->setLesson(std::move(*lesson));
    return true;
}

void LessonPanel::appear() {
    if (isVisible())
        return;
    show();
    raise();
    // A fifth of the window: room for a caption, and the views keep the rest.
    if (auto* window = qobject_cast<QMainWindow*>(parentWidget()))
        window->resizeDocks({this}, {std::max(300, window->width() / 5)}, Qt::Horizontal);
}

bool LessonPanel::confirmClose() {
    if (!player_->hasLesson() || !recorder_->modified())
        return true;
    const auto answer = QMessageBox::question(
        parentWidget(), tr("Unsaved lesson"),
        tr("The lesson \"%1\" has steps that are not saved. Save them first?").arg(player_->lesson().title),
        QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    if (answer == QMessageBox::Cancel)
        return false;
    return answer == QMessageBox::Discard || saveAs();
}

void LessonPanel::refresh() {
    const bool has = player_->hasLesson();
    const int n = player_->count(), i = player_->index();
    title_->setText(QStringLiteral("<b>%1</b>")
                        .arg((has ? player_->lesson().title : tr("No lesson open")).toHtmlEscaped()));
    position_->setText(has && i >= 0 ? tr("Step %1 of %2").arg(i + 1).arg(n) : QString());
    {
        const QSignalBlocker block(steps_);
        steps_->clear();
        if (has)
            for (int k = 0; k < n; ++k) {
                const QString line = stepLine(k);
                steps_->addItem(QStringLiteral("%1. %2").arg(k + 1).arg(
                    line.size() > 80 ? line.left(79) + QChar(0x2026) : line));
            }
        steps_->setCurrentRow(i);
    }
    previousButton_->setEnabled(has && i > 0);
    nextButton_->setEnabled(has && i + 1 < n);
    next_->setEnabled(has && i + 1 < n);
    previous_->setEnabled(has && i > 0);
    restore_->setEnabled(has && i >= 0);
    save_->setEnabled(has && n > 0);
    close_->setEnabled(has);
    for (auto* b : {editButton_, upButton_, downButton_, deleteButton_})
        b->setEnabled(has && n > 0);
    if (!has) {
        caption_->clear();
        status_->clear();
    }
}

void LessonPanel::showCaption() {
    QStringList missing;
    caption_->setText(player_->captionHtml(&missing));
    caption_->setEnabled(true);
    status_->setText(missing.isEmpty()
                         ? QString()
                         : tr("Not on screen now: {%1}").arg(missing.join(QStringLiteral("}, {"))));
}

void LessonPanel::recordStep() {
    bool ok = false;
    const QString caption =
        QInputDialog::getMultiLineText(parentWidget(), tr("Record Step"),
                                       tr("Caption for the window as it is now (*emphasis*, **strong**, "
                                          "{weight}, {next} … for the live numbers):"),
                                       QString(), &ok);
    if (!ok)
        return;
    QString error;
    if (!recorder_->record(caption, &error)) {
        QMessageBox::warning(parentWidget(), tr("Record Step"), error);
        return;
    }
    appear();
}

void LessonPanel::editCaption() {
    const int i = steps_->currentRow();
    if (i < 0 || i >= player_->count())
        return;
    bool ok = false;
    const QString caption = QInputDialog::getMultiLineText(
        parentWidget(), tr("Edit Caption"), tr("Caption of step %1:").arg(i + 1),
        player_->lesson().steps[std::size_t(i)].caption, &ok);
    if (!ok)
        return;
    QString error;
    if (!recorder_->setCaption(i, caption, &error))
        QMessageBox::warning(parentWidget(), tr("Edit Caption"), error);
    else if (i == player_->index() && player_->arrived())
        showCaption();
}

bool LessonPanel::saveAs() {
    bool ok = false;
    const QString title = QInputDialog::getText(parentWidget(), tr("Save Lesson"), tr("Title:"),
                                                QLineEdit::Normal, player_->lesson().title, &ok);
    if (!ok)
        return false;
    recorder_->setTitle(title);
    const QString start = player_->lesson().path.isEmpty()
                              ? QDir(AppSettings::exportDir()).filePath(QStringLiteral("lesson.json"))
                              : player_->lesson().path;
    const QString path =
        QFileDialog::getSaveFileName(parentWidget(), tr("Save Lesson As"), start, tr("Lessons (*.json)"));
    if (path.isEmpty())
        return false;
    QString error;
    if (!recorder_->save(path, &error)) {
        QMessageBox::warning(parentWidget(), tr("Save Lesson"), error);
        return false;
    }
    status_->setText(tr("Saved to %1").arg(QDir::toNativeSeparators(path)));
    return true;
}

QString LessonPanel::stepLine(int i) const {
    if (i < 0 || i >= player_->count())
        return {};
    if (i < shownLines_.size() && !shownLines_[i].isEmpty())
        return shownLines_[i];
    // Not shown yet: its numbers are unknown, and a line of "…" reads as broken. The line up to its first
    // number says which step it is.
    const QString caption = player_->lesson().steps[std::size_t(i)].caption;
    const QChar mark(0xFFFC); // stands for each number, to find the first
    const QString line = LessonCaption::toPlain(caption, [mark](const QString&, const std::vector<int>&) {
                             return std::optional<QString>(QString(mark));
                         }).section(QLatin1Char('\n'), 0, 0);
    const int cut = line.indexOf(mark);
    return cut < 0 ? line : line.left(cut).trimmed() + QStringLiteral(" \u2026");
}

QString LessonPanel::captionText() const {
    return caption_->text();
}

QString LessonPanel::positionText() const {
    return position_->text();
}

QString LessonPanel::statusText() const {
    return status_->text();
}

} // namespace ui
