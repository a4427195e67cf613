#include "ui/lesson/LessonPlayer.h"

#include "core/model/Model.h"
#include "ui/attention/AttentionPage.h"
#include "ui/attention/DecodePanel.h"
#include "ui/base/QCustomPlotInclude.h"
#include "ui/base/ViewState.h"
#include "ui/inside/InsideView.h"
#include "ui/lesson/LessonCaption.h"
#include "ui/lesson/LessonFile.h"
#include "ui/lesson/LessonSpotlight.h"
#include "ui/lesson/LessonStepReader.h"
#include "ui/lesson/LessonTrainTab.h"
#include "ui/research/HeadTable.h"
#include "ui/run/AnalysisController.h"
#include "ui/run/ModelOpener.h"
#include "ui/train/TrainPage.h"
#include "ui/views/AttentionGrid.h"
#include "ui/views/HeatmapView.h"

#include <QDir>
#include <QFileInfo>
#include <QTimer>

namespace ui {

namespace {

// Steps of a lesson are decoded one request at a time; a state that has not settled after this many is one
// the window cannot reach (a run that keeps changing under it).
constexpr int kMaxRequests = 4000;

QString canonical(const QString& dir) {
    const QString c = QFileInfo(dir).canonicalFilePath();
    return c.isEmpty() ? QFileInfo(dir).absoluteFilePath() : c;
}

} // namespace

LessonPlayer::LessonPlayer(LessonWindow window) : QObject(window.owner), w_(std::move(window)) {
    auto* c = w_.controller;
    connect(c, &AnalysisController::resultChanged, this, &LessonPlayer::schedule);
    connect(c, &AnalysisController::busyChanged, this, &LessonPlayer::schedule);
    connect(c, &AnalysisController::insideReady, this, &LessonPlayer::schedule);
    connect(c, &AnalysisController::cleared, this, &LessonPlayer::schedule);
    connect(c, &AnalysisController::failed, this, [this](const QString& message) {
        if (open_ && index_ >= 0 && !arrived_)
            fail(message);
    });
    connect(w_.heads, &HeadTable::scoresChanged, this, &LessonPlayer::schedule);
    connect(w_.train, &TrainPage::progressed, this, &LessonPlayer::schedule);
    connect(w_.train, &TrainPage::trainingChanged, this, &LessonPlayer::schedule);
    gridSpot_ = new LessonSpotlight(w_.attention->grid());
    heatSpot_ = new LessonSpotlight(w_.attention->heatmap()->plot());
}

void LessonPlayer::setLesson(Lesson lesson) {
    lesson_ = std::move(lesson);
    open_ = true;
    modified_ = false;
    index_ = -1;
    arrived_ = false;
    Q_EMIT lessonChanged();
    if (!lesson_.steps.empty())
        go(0);
}

void LessonPlayer::close() {
    open_ = false;
    lesson_ = Lesson{};
    index_ = -1;
    arrived_ = false;
    modified_ = false;
    gridSpot_->clear();
    heatSpot_->clear();
    w_.inside->setStage(0);
    Q_EMIT lessonChanged();
}

void LessonPlayer::go(int index) {
    if (!open_ || index < 0 || index >= count())
        return;
    index_ = index;
    arrived_ = false;
    requests_ = 0;
    // Heads a user switched off while exploring are no part of any step.
    w_.controller->setAblation({});
    Q_EMIT moving(index_);
    schedule();
}

void LessonPlayer::schedule() {
    if (!open_ || index_ < 0 || arrived_ || scheduled_)
        return;
    scheduled_ = true;
    // After the signal that called this has been handled everywhere: the window is consistent then.
    QTimer::singleShot(0, this, [this] {
        scheduled_ = false;
        reconcile();
    });
}

void LessonPlayer::fail(const QString& message) {
    const int at = index_;
    arrived_ = true; // nothing more to wait for; going to a step tries again
    Q_EMIT failed(at, message);
}

void LessonPlayer::reconcile() {
    if (!open_ || index_ < 0 || arrived_)
        return;
    if (++requests_ > kMaxRequests)
        return fail(tr("step %1: the window did not settle on the step's state").arg(index_ + 1));
    const auto& s = lesson_.steps[std::size_t(index_)].state;
    auto* c = w_.controller;
    const QString dir = LessonFile::modelFolder(lesson_, s.model, w_.modelsDir);
    if (!QFileInfo(dir).isDir())
        return fail(tr("step %1: no model \"%2\": neither a built-in model nor a folder (%3)")
                        .arg(index_ + 1)
                        .arg(s.model, QDir::toNativeSeparators(dir)));
    if (canonical(w_.opener->directory()) != canonical(dir)) {
        if (!w_.opener->open(dir))
            return fail(tr("step %1: %2").arg(index_ + 1).arg(w_.lastError()));
        return schedule();
    }
    // Lessons decode greedily: the tokens a caption speaks of are the model's most likely ones.
    auto* decode = w_.attention->decodePanel();
    if (!decode->sampling().greedy) {
        auto greedy = decode->sampling();
        greedy.greedy = true;
        decode->setSampling(greedy);
    }
    if (w_.sourceText() != s.text) {
        w_.setSourceText(s.text);
        c->analyzeNow();
        return;
    }
    if (c->busy())
        return; // busyChanged brings us back
    const auto r = c->current();
    if (!r || r->sourceText != s.text) {
        c->analyzeNow();
        return;
    }
    if (r->step < s.step) {
        if (r->finished)
            return fail(tr("step %1: the model finished \"%2\" after %3 token(s); the step asks for %4")
                            .arg(index_ + 1)
                            .arg(r->decodedText)
                            .arg(r->step)
                            .arg(s.step));
        c->step();
        return;
    }
    if (r->step > s.step) {
        c->back();
        return;
    }
    if (!applyView())
        return;
    if (c->busy())
        return; // the colour source asked the worker for another result
    if (s.tab == QLatin1String("inside")) {
        const auto& in = w_.inside->shownInside();
        const auto want = w_.inside->wanted();
        if (!in || in->step != r->step || in->row.query.kind != want.kind ||
            in->row.query.layer != want.layer || in->row.query.head != want.head ||
            in->row.query.row != want.row)
            return; // insideReady brings us back
    }
    if (wantsHeadScores()) {
        auto* heads = w_.heads;
        heads->ensureScores();
        if (heads->computing() || heads->scores().empty())
            return; // scoresChanged brings us back
    }
    if (!reconcileTraining())
        return;
    arrived_ = true;
    Q_EMIT arrivedAt(index_);
}

bool LessonPlayer::applyView() {
    const auto& step = lesson_.steps[std::size_t(index_)];
    const auto& s = step.state;
    const auto r = w_.controller->current();
    auto* state = w_.state;
    const auto& config = r->model->config();
    const QString name = QString::fromStdString(config.name);
    if (!r->snapshot->has(s.kind)) {
        fail(tr("step %1: %2 has no %3 attention")
                 .arg(index_ + 1)
                 .arg(name, LessonStepReader::kindName(s.kind)));
        return false;
    }
    state->setKind(s.kind);
    state->setSelection(s.layer, s.head);
    if (state->layer() != s.layer || state->head() != s.head) {
        const auto& b = r->snapshot->block(s.kind);
        fail(tr("step %1: %2's %3 attention has layers 0–%4 and heads 0–%5 (or mean), not layer %6, "
                "head %7")
                 .arg(index_ + 1)
                 .arg(name, LessonStepReader::kindName(s.kind))
                 .arg(b.layers - 1)
                 .arg(b.heads - 1)
                 .arg(s.layer)
                 .arg(s.head == core::kMeanHead ? tr("mean") : QString::number(s.head)));
        return false;
    }
    state->setScaleMode(s.scale);
    state->setValueWeighted(s.valueWeighted);
    if (s.markRow >= 0)
        state->setMarkedToken(Qt::Horizontal, s.markRow);
    else if (s.markColumn >= 0)
        state->setMarkedToken(Qt::Vertical, s.markColumn);
    else
        state->setMarkedToken(Qt::Horizontal, -1);
    const auto page = pageNamed(s.tab);
    w_.showPage(*page);
    if (w_.currentPage() != *page) {
        fail(tr("step %1: %2 has no %3 page").arg(index_ + 1).arg(name, s.tab));
        return false;
    }
    w_.inside->setStage(s.tab == QLatin1String("inside") ? s.insideStage : 0);

    const auto& h = step.highlight;
    if (h.hasTile()) {
        auto* grid = w_.attention->grid();
        gridSpot_->show([grid, h] { return grid->tileRect(h.tileLayer, h.tileHead); });
    } else {
        gridSpot_->clear();
    }
    if (h.hasCell()) {
        auto* plot = w_.attention->heatmap()->plot();
        heatSpot_->show([plot, h] {
            const double x0 = plot->xAxis->coordToPixel(h.cellColumn - 0.5);
            const double x1 = plot->xAxis->coordToPixel(h.cellColumn + 0.5);
            const double y0 = plot->yAxis->coordToPixel(h.cellRow - 0.5);
            const double y1 = plot->yAxis->coordToPixel(h.cellRow + 0.5);
            return QRectF(QPointF(x0, y0), QPointF(x1, y1)).normalized().toAlignedRect();
        });
    } else {
        heatSpot_->clear();
    }
    return true;
}

bool LessonPlayer::reconcileTraining() {
    QString message;
    switch (LessonTrainTab::reach(*w_.train, lesson_.steps[std::size_t(index_)].state, &message)) {
    case LessonTrainTab::Reach::There:
        return true;
    case LessonTrainTab::Reach::Waiting:
        if (!message.isEmpty())
            Q_EMIT waiting(index_, message);
        // A run's rows and frames wake the player up to 100,000 steps long: waiting for them is no request
        // of the window that might never settle.
        --requests_;
        return false; // the tab's progress brings us back
    case LessonTrainTab::Reach::Failed:
        fail(tr("step %1: %2").arg(index_ + 1).arg(message));
        return false;
    }
    return false;
}

bool LessonPlayer::wantsHeadScores() const {
    const auto& step = lesson_.steps[std::size_t(index_)];
    if (step.state.tab == QLatin1String("heads"))
        return true;
    return step.caption.contains(QLatin1String("{induction")) ||
           step.caption.contains(QLatin1String("{previous"));
}

LessonNumbers LessonPlayer::numbers() const {
    LessonNumbers n;
    n.result = w_.controller->current();
    n.shown = w_.state->shown();
    if (open_ && index_ >= 0 && index_ < count())
        n.highlight = lesson_.steps[std::size_t(index_)].highlight;
    if (w_.currentPage() == Page::Inside)
        n.inside = w_.inside->shownInside();
    n.scores = &w_.heads->scores();
    n.training = LessonTrainTab::facts(*w_.train);
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

QString LessonPlayer::captionPlain(QStringList* missing) const {
    if (!open_ || index_ < 0 || index_ >= count())
        return {};
    const auto n = numbers();
    return LessonCaption::toPlain(
        lesson_.steps[std::size_t(index_)].caption,
        [&n](const QString& name, const std::vector<int>& args) { return n.value(name, args); }, missing);
}

LessonState LessonPlayer::captureState() const {
    LessonState s;
    const QString dir = w_.opener->directory();
    if (w_.opener->isBuiltin(dir))
        s.model = QFileInfo(dir).fileName();
    else if (!lesson_.path.isEmpty())
        s.model = QFileInfo(lesson_.path).absoluteDir().relativeFilePath(dir);
    else
        s.model = QFileInfo(dir).absoluteFilePath();
    s.text = w_.sourceText();
    const auto r = w_.controller->current();
    s.step = r ? r->step : 0;
    s.tab = pageName(w_.currentPage());
    const auto* state = w_.state;
    s.kind = state->kind();
    s.layer = state->layer();
    s.head = state->head();
    if (state->markIndex() >= 0)
        (state->markOrientation() == Qt::Horizontal ? s.markRow : s.markColumn) = state->markIndex();
    s.scale = state->scaleMode();
    s.valueWeighted = state->valueWeighted();
    s.insideStage = s.tab == QLatin1String("inside") ? w_.inside->stage() : 0;
    LessonTrainTab::capture(*w_.train, s);
    return s;
}

bool LessonPlayer::record(const QString& caption, QString* error) {
    if (!LessonCaption::check(caption, error))
        return false;
    LessonStep step;
    step.state = captureState();
    step.caption = caption;
    if (!open_) {
        lesson_ = Lesson{};
        lesson_.title = tr("Untitled lesson");
        open_ = true;
    }
    const int at = index_ < 0 ? count() : index_ + 1;
    lesson_.steps.insert(lesson_.steps.begin() + at, std::move(step));
    index_ = at;
    arrived_ = true; // recorded from the window: it is there
    modified_ = true;
    Q_EMIT lessonChanged();
    Q_EMIT arrivedAt(index_);
    return true;
}

bool LessonPlayer::setCaption(int index, const QString& caption, QString* error) {
    if (index < 0 || index >= count())
        return false;
    if (!LessonCaption::check(caption, error))
        return false;
    lesson_.steps[std::size_t(index)].caption = caption;
    modified_ = true;
    Q_EMIT lessonChanged();
    return true;
}

void LessonPlayer::moveStep(int from, int to) {
    if (from < 0 || from >= count() || to < 0 || to >= count() || from == to)
        return;
    auto step = std::move(lesson_.steps[std::size_t(from)]);
    lesson_.steps.erase(lesson_.steps.begin() + from);
    lesson_.steps.insert(lesson_.steps.begin() + to, std::move(step));
    if (index_ == from)
        index_ = to;
    else if (from < index_ && to >= index_)
        --index_;
    else if (from > index_ && to <= index_)
        ++index_;
    modified_ = true;
    Q_EMIT lessonChanged();
}

void LessonPlayer::removeStep(int index) {
    if (index < 0 || index >= count())
        return;
    lesson_.steps.erase(lesson_.steps.begin() + index);
    if (index_ >= count())
        index_ = count() - 1;
    modified_ = true;
    Q_EMIT lessonChanged();
}

void LessonPlayer::setTitle(const QString& title) {
    if (title.trimmed().isEmpty() || title == lesson_.title)
        return;
    lesson_.title = title;
    modified_ = true;
    Q_EMIT lessonChanged();
}

bool LessonPlayer::save(const QString& path, QString* error) {
    // A relative model folder is written relative to where the lesson goes.
    Lesson out = lesson_;
    for (auto& step : out.steps) {
        const QString dir = LessonFile::modelFolder(lesson_, step.state.model, w_.modelsDir);
        if (!w_.opener->isBuiltin(dir))
            step.state.model =
                QFileInfo(path).absoluteDir().relativeFilePath(QFileInfo(dir).absoluteFilePath());
    }
    if (!LessonFile::save(out, path, error))
        return false;
    lesson_ = std::move(out);
    lesson_.path = path;
    modified_ = false;
    Q_EMIT lessonChanged();
    return true;
}

} // namespace ui
