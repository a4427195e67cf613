#include "ui/lesson/LessonPlayer.h"

#include "ui/attention/AttentionPage.h"
#include "ui/base/ViewState.h"
#include "ui/inside/InsideView.h"
#include "ui/lesson/LessonCaption.h"
#include "ui/lesson/LessonFile.h"
#include "ui/lesson/LessonTrainTab.h"
#include "ui/research/HeadTable.h"
#include "ui/run/AnalysisController.h"
#include "ui/run/ModelOpener.h"
#include "ui/train/TrainPage.h"
#include "ui/window/WindowDriver.h"

#include <QDir>
#include <QFileInfo>

namespace ui {

LessonPlayer::LessonPlayer(LessonWindow window) : QObject(window.driver), w_(std::move(window)) {
    auto* d = w_.driver;
    connect(d, &WindowDriver::viewSet, this, [this] {
        if (driving_)
            showHighlight();
    });
    connect(d, &WindowDriver::arrivedAtTarget, this, [this] {
        if (!driving_)
            return;
        driving_ = false;
        arrived_ = true;
        Q_EMIT arrivedAt(index_);
    });
    connect(d, &WindowDriver::waiting, this, [this](const QString& what) {
        if (driving_)
            Q_EMIT waiting(index_, what);
    });
    connect(d, &WindowDriver::failed, this, [this](const QString& message) {
        if (driving_)
            fail(tr("step %1: %2").arg(index_ + 1).arg(message));
    });
}

void LessonPlayer::setLesson(Lesson lesson) {
    lesson_ = std::move(lesson);
    open_ = true;
    index_ = -1;
    arrived_ = false;
    Q_EMIT lessonChanged();
    Q_EMIT lessonOpened();
    if (!lesson_.steps.empty())
        go(0);
}

void LessonPlayer::close() {
    if (driving_)
        w_.driver->stop();
    driving_ = false;
    open_ = false;
    lesson_ = Lesson{};
    index_ = -1;
    arrived_ = false;
    w_.attention->spotlightTile(-1, 0);
    w_.attention->spotlightCell(-1, 0);
    w_.driver->parts().inside->setStage(0);
    Q_EMIT lessonOpened();
    Q_EMIT lessonChanged();
}

void LessonPlayer::go(int index) {
    if (!open_ || index < 0 || index >= count())
        return;
    index_ = index;
    arrived_ = false;
    Q_EMIT moving(index_);
    auto state = lesson_.steps[std::size_t(index_)].state;
    const QString dir = LessonFile::modelFolder(lesson_, state.model, w_.modelsDir);
    if (!QFileInfo(dir).isDir()) {
        if (driving_)
            w_.driver->stop();
        return fail(tr("step %1: no model \"%2\": neither a built-in model nor a folder (%3)")
                        .arg(index_ + 1)
                        .arg(state.model, QDir::toNativeSeparators(dir)));
    }
    if (const QString refusal =
            LessonFile::modelRefusal(lesson_, dir, w_.modelsDir, w_.driver->parts().opener->directory());
        !refusal.isEmpty()) {
        if (driving_)
            w_.driver->stop();
        return fail(tr("step %1: %2").arg(index_ + 1).arg(refusal));
    }
    state.model = dir;
    driving_ = true;
    // Lessons decode greedily (the tokens a caption speaks of are the model's most likely ones), with every
    // head on: the state's defaults.
    WindowDriver::Options options;
    options.headScores = wantsHeadScores();
    w_.driver->drive(std::move(state), options);
}

void LessonPlayer::fail(const QString& message) {
    const int at = index_;
    driving_ = false;
    arrived_ = true; // nothing more to wait for; going to a step tries again
    Q_EMIT failed(at, message);
}

void LessonPlayer::showHighlight() {
    const auto& h = lesson_.steps[std::size_t(index_)].highlight;
    w_.attention->spotlightTile(h.hasTile() ? h.tileLayer : -1, h.tileHead);
    w_.attention->spotlightCell(h.hasCell() ? h.cellRow : -1, h.cellColumn);
}

bool LessonPlayer::wantsHeadScores() const {
    const auto& step = lesson_.steps[std::size_t(index_)];
    return step.caption.contains(QLatin1String("{induction")) ||
           step.caption.contains(QLatin1String("{previous"));
}

LessonNumbers LessonPlayer::numbers() const {
    const auto& w = w_.driver->parts();
    LessonNumbers n;
    n.result = w.controller->current();
    n.shown = w.state->shown();
    if (open_ && index_ >= 0 && index_ < count())
        n.highlight = lesson_.steps[std::size_t(index_)].highlight;
    if (w.currentPage() == Page::Inside)
        n.inside = w.inside->shownInside();
    n.scores = &w.heads->scores();
    n.training = LessonTrainTab::facts(*w.train);
    return n;
}

QString LessonPlayer::captionHtml(QStringList* missing) const {
    if (!open_ || index_ < 0 || index_ >= count())
        return {};
    const auto n = numbers();
    return LessonCaption::toHtml(
        lesson_.steps[std::size_t(index_)].caption,
        [&n](const QString& name, const std::vector<int>& args) { return n.value(name, args); }, missing);
}

QString LessonPlayer::captionHtmlOnTheWay() const {
    if (!open_ || index_ < 0 || index_ >= count())
        return {};
    return LessonCaption::toHtml(lesson_.steps[std::size_t(index_)].caption, {});
}

QString LessonPlayer::awaiting() const {
    return driving_ ? w_.driver->awaiting() : QString();
}

QString LessonPlayer::captionPlain(QStringList* missing) const {
    if (!open_ || index_ < 0 || index_ >= count())
        return {};
    const auto n = numbers();
    return LessonCaption::toPlain(
        lesson_.steps[std::size_t(index_)].caption,
        [&n](const QString& name, const std::vector<int>& args) { return n.value(name, args); }, missing);
}

void LessonPlayer::edit(const std::function<void(Lesson&, int&)>& change) {
    if (!open_) {
        lesson_ = Lesson{};
        lesson_.title = tr("Untitled lesson");
        open_ = true;
    }
    change(lesson_, index_);
    if (index_ >= count())
        index_ = count() - 1;
    Q_EMIT lessonChanged();
}

void LessonPlayer::settleAt(int index) {
    if (!open_ || index < 0 || index >= count())
        return;
    if (driving_)
        w_.driver->stop();
    driving_ = false;
    index_ = index;
    arrived_ = true;
    Q_EMIT arrivedAt(index_);
}

} // namespace ui
