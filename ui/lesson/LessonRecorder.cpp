#include "ui/lesson/LessonRecorder.h"

#include "ui/lesson/LessonCaption.h"
#include "ui/lesson/LessonFile.h"
#include "ui/lesson/LessonPlayer.h"
#include "ui/run/ModelOpener.h"
#include "ui/window/WindowDriver.h"

#include <QDir>
#include <QFileInfo>

namespace ui {

LessonRecorder::LessonRecorder(LessonPlayer* player, WindowDriver* driver, QString modelsDir)
    : QObject(player), player_(player), driver_(driver), modelsDir_(std::move(modelsDir)) {
    // A lesson opened or closed has nothing recorded that is not saved.
    connect(player_, &LessonPlayer::lessonOpened, this, [this] { modified_ = false; });
}

WindowState LessonRecorder::captureState() const {
    auto s = driver_->capture();
    // What a lesson file keeps of the state; a step decodes greedily with every head on, and leaves the
    // colours and the reading past max_len as the viewer has them.
    const WindowState defaults;
    s.sampling = defaults.sampling;
    s.pastMaxLen = defaults.pastMaxLen;
    s.headsOff = defaults.headsOff;
    s.colorMap = defaults.colorMap;
    s.lines = defaults.lines;
    const auto* opener = driver_->parts().opener;
    const QString dir = s.model;
    if (opener->isBuiltin(dir))
        s.model = QFileInfo(dir).fileName();
    else if (!player_->lesson().path.isEmpty())
        s.model = QFileInfo(player_->lesson().path).absoluteDir().relativeFilePath(dir);
    else
        s.model = QFileInfo(dir).absoluteFilePath();
    return s;
}

bool LessonRecorder::record(const QString& caption, QString* error) {
    if (!LessonCaption::check(caption, error))
        return false;
    LessonStep step;
    step.state = captureState();
    step.caption = caption;
    int at = 0;
    modified_ = true;
    player_->edit([&](Lesson& lesson, int& index) {
        at = index < 0 ? int(lesson.steps.size()) : index + 1;
        lesson.steps.insert(lesson.steps.begin() + at, std::move(step));
        index = at;
    });
    player_->settleAt(at); // recorded from the window: it is there
    return true;
}

bool LessonRecorder::setCaption(int index, const QString& caption, QString* error) {
    if (index < 0 || index >= player_->count())
        return false;
    if (!LessonCaption::check(caption, error))
        return false;
    modified_ = true;
    player_->edit([&](Lesson& lesson, int&) { lesson.steps[std::size_t(index)].caption = caption; });
    return true;
}

void LessonRecorder::moveStep(int from, int to) {
    const int n = player_->count();
    if (from < 0 || from >= n || to < 0 || to >= n || from == to)
        return;
    modified_ = true;
    player_->edit([from, to](Lesson& lesson, int& index) {
        auto step = std::move(lesson.steps[std::size_t(from)]);
        lesson.steps.erase(lesson.steps.begin() + from);
        lesson.steps.insert(lesson.steps.begin() + to, std::move(step));
        if (index == from)
            index = to;
        else if (from < index && to >= index)
            --index;
        else if (from > index && to <= index)
            ++index;
    });
}

void LessonRecorder::removeStep(int at) {
    if (at < 0 || at >= player_->count())
        return;
    modified_ = true;
    player_->edit([at](Lesson& lesson, int&) { lesson.steps.erase(lesson.steps.begin() + at); });
}

void LessonRecorder::setTitle(const QString& title) {
    if (title.trimmed().isEmpty() || title == player_->lesson().title)
        return;
    modified_ = true;
    player_->edit([&title](Lesson& lesson, int&) { lesson.title = title; });
}

bool LessonRecorder::save(const QString& path, QString* error) {
    // A relative model folder is written relative to where the lesson goes.
    Lesson out = player_->lesson();
    const auto* opener = driver_->parts().opener;
    for (auto& step : out.steps) {
        const QString dir = LessonFile::modelFolder(player_->lesson(), step.state.model, modelsDir_);
        if (!opener->isBuiltin(dir))
            step.state.model =
                QFileInfo(path).absoluteDir().relativeFilePath(QFileInfo(dir).absoluteFilePath());
    }
    if (!LessonFile::save(out, path, error))
        return false;
    out.path = path;
    modified_ = false;
    player_->edit([&out](Lesson& lesson, int&) { lesson = std::move(out); });
    return true;
}

} // namespace ui
