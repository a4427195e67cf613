#include "ui/window/WindowDriver.h"

#include "core/model/Model.h"
#include "ui/attention/AttentionPage.h"
#include "ui/base/ViewState.h"
#include "ui/inside/InsideView.h"
#include "ui/positional/PositionalView.h"
#include "ui/research/ComparePage.h"
#include "ui/research/HeadTable.h"
#include "ui/run/AnalysisController.h"
#include "ui/run/ModelOpener.h"
#include "ui/train/TrainPage.h"
#include "ui/window/TrainTabDriver.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QTimer>

#include <algorithm>

namespace ui {

namespace {

// A state is reached one request at a time; one that has not settled after this many is one the window
// cannot reach (a run that keeps changing under it).
constexpr int kMaxRequests = 4000;
// A drive that has heard nothing for this long looks at what it waits for. Work under way is said to be under
// way still. With nothing under way no signal will come: it looks at the window again itself, a few times
// (what it waited for may have happened without the signal it listens to), and then fails, saying what it
// waited for, rather than a lesson saying "Getting the window there…" for good.
constexpr int kQuietMs = 3000;
constexpr int kQuietLooks = 3;

QString canonical(const QString& dir) {
    const QString c = QFileInfo(dir).canonicalFilePath();
    return c.isEmpty() ? QFileInfo(dir).absoluteFilePath() : c;
}

QString kindName(core::AttentionKind kind) {
    return QString::fromLatin1(core::toString(kind));
}

using Forced = std::vector<std::pair<int, int64_t>>;

// The tokens a run forced, as a WindowState holds them: {which decoded token, from 0; its id}.
Forced forcedOf(const RunResult& r) {
    Forced out;
    const auto& tgt = r.snapshot->tgtTokens;
    const int first = static_cast<int>(tgt.size()) - r.step; // where the decoded tokens start
    for (const int p : r.snapshot->forced)
        if (p >= first && p < static_cast<int>(tgt.size()))
            out.emplace_back(p - first, tgt[std::size_t(p)].id);
    return out;
}

// The first of the tokens decoded so far (before `step`) that the run and the state force differently,
// one forcing it and the other not or each another token; −1 when they agree.
int firstForcedDifference(const Forced& run, const Forced& want, int step) {
    int first = -1;
    const auto differs = [&](const Forced& a, const Forced& b) {
        for (const auto& f : a)
            if (f.first < step && std::find(b.begin(), b.end(), f) == b.end() &&
                (first < 0 || f.first < first))
                first = f.first;
    };
    differs(run, want);
    differs(want, run);
    return first;
}

} // namespace

WindowDriver::WindowDriver(WindowParts parts) : QObject(parts.owner), w_(std::move(parts)) {
    quiet_ = new QTimer(this);
    quiet_->setSingleShot(true);
    quiet_->setInterval(kQuietMs);
    connect(quiet_, &QTimer::timeout, this, &WindowDriver::checkQuiet);
    auto* c = w_.controller;
    connect(c, &AnalysisController::resultChanged, this, &WindowDriver::schedule);
    connect(c, &AnalysisController::busyChanged, this, &WindowDriver::schedule);
    connect(c, &AnalysisController::idle, this, &WindowDriver::schedule);
    connect(c, &AnalysisController::insideReady, this, &WindowDriver::schedule);
    connect(c, &AnalysisController::cleared, this, &WindowDriver::schedule);
    connect(c, &AnalysisController::failed, this, [this](const QString& message) {
        if (driving())
            fail(message);
    });
    // Heads the model does not have (a lesson's, a screenshot's --ablate) are refused where they enter.
    connect(w_.state, &ViewState::headsOffRefused, this, [this](const QString& message) {
        if (driving())
            fail(message);
    });
    connect(w_.heads, &HeadTable::scoresChanged, this, &WindowDriver::schedule);
    connect(w_.positional, &PositionalView::busyChanged, this, &WindowDriver::schedule);
    connect(w_.attention, &AttentionPage::busyChanged, this, &WindowDriver::schedule);
    connect(w_.train, &TrainPage::progressed, this, &WindowDriver::schedule);
    connect(w_.train, &TrainPage::trainingChanged, this, &WindowDriver::schedule);
}

void WindowDriver::drive(WindowState target, Options options) {
    target_ = std::move(target);
    options_ = options;
    active_ = true;
    arrived_ = false;
    pinned_ = false;
    requests_ = 0;
    awaiting_.clear();
    quietLooks_ = 0;
    quietSince_.start();
    // Heads a user switched off while exploring are no part of the state: its tokens are decoded with every
    // head on, and its own heads switched off after them.
    w_.state->setHeadsOff({});
    schedule();
}

void WindowDriver::stop() {
    active_ = false;
    arrived_ = false;
    quiet_->stop();
}

bool WindowDriver::workUnderWay() const {
    return w_.controller->busy() || w_.heads->computing() || w_.attention->busy() || w_.positional->busy() ||
           w_.train->training();
}

void WindowDriver::checkQuiet() {
    if (!driving())
        return;
    const auto seconds = (quietSince_.elapsed() + 500) / 1000;
    if (workUnderWay()) {
        Q_EMIT waiting(tr("Still waiting for %1 (%2 s)…").arg(awaiting_).arg(seconds));
        quiet_->start();
        return;
    }
    if (quietLooks_ < kQuietLooks) {
        ++quietLooks_;
        qWarning(
            "attnscope: the window's driver heard nothing for %lld s while waiting for %s; looking again",
            static_cast<long long>(seconds), qPrintable(awaiting_));
        reconcile();
        return;
    }
    fail(tr("the window stopped on its way, waiting %1 s for %2 with nothing under way")
             .arg(seconds)
             .arg(awaiting_.isEmpty() ? tr("the first request") : awaiting_));
}

bool WindowDriver::driveAndWait(WindowState target, Options options, QString* error, int timeoutMs) {
    bool done = false;
    QString failure;
    const auto reached = connect(this, &WindowDriver::arrivedAtTarget, this, [&done] { done = true; });
    const auto refused = connect(this, &WindowDriver::failed, this, [&](const QString& message) {
        failure = message;
        done = true;
    });
    drive(std::move(target), options);
    QElapsedTimer waited;
    waited.start();
    while (!done && waited.elapsed() < timeoutMs)
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
    disconnect(reached);
    disconnect(refused);
    if (!done) {
        stop();
        failure = tr("the window did not reach the state in %1 s (waiting for %2)")
                      .arg(timeoutMs / 1000)
                      .arg(awaiting_);
    }
    if (!failure.isEmpty()) {
        if (error)
            *error = failure;
        return false;
    }
    QCoreApplication::processEvents();
    return true;
}

void WindowDriver::schedule() {
    if (!driving() || scheduled_)
        return;
    scheduled_ = true;
    // After the signal that called this has been handled everywhere: the window is consistent then.
    QTimer::singleShot(0, this, [this] {
        scheduled_ = false;
        quietLooks_ = 0; // a signal came
        quietSince_.restart();
        reconcile();
    });
}

void WindowDriver::fail(const QString& message) {
    active_ = false; // nothing more to wait for; driving again tries again
    quiet_->stop();
    Q_EMIT failed(message);
}

void WindowDriver::reconcile() {
    if (!driving())
        return;
    if (++requests_ > kMaxRequests)
        return fail(tr("the window did not settle on the state"));
    quiet_->start();
    const auto& s = target_;
    auto* c = w_.controller;
    if (!s.model.isEmpty() && canonical(w_.opener->directory()) != canonical(s.model)) {
        awaiting_ = tr("the model %1 to open").arg(QFileInfo(s.model).fileName());
        if (!w_.opener->open(s.model))
            return fail(w_.lastError());
        return schedule();
    }
    // Greedy keeps the sampling settings a user chose for later: greedy decoding ignores them.
    auto sampling = w_.attention->sampling();
    if (options_.remembered) {
        if (!sameSampling(sampling, s.sampling))
            w_.attention->setSampling(s.sampling); // a temperature kept for later, too
    } else if (s.sampling.greedy ? !sampling.greedy : !sameSampling(sampling, s.sampling)) {
        if (s.sampling.greedy)
            sampling.greedy = true;
        else
            sampling = s.sampling;
        w_.attention->setSampling(sampling);
    }
    if (s.pastMaxLen && c->pastMaxLen() != *s.pastMaxLen)
        c->setPastMaxLen(*s.pastMaxLen);
    if (w_.state->valueWeighted() != s.valueWeighted)
        w_.state->setValueWeighted(s.valueWeighted); // the worker adds value norms to the runs from here on
    if (w_.sourceText() != s.text) {
        awaiting_ = tr("the analysis of the text");
        w_.setSourceText(s.text);
        c->analyzeNow();
        return;
    }
    const auto r = c->current();
    if (c->busy()) {
        awaiting_ = r ? tr("the decode (at step %1, going to %2)").arg(r->step).arg(s.step)
                      : tr("the analysis of the text");
        return; // busyChanged brings us back
    }
    if (!s.text.isEmpty()) {
        if (!r || r->sourceText != s.text) {
            awaiting_ = tr("the analysis of the text");
            c->analyzeNow();
            return;
        }
        if (r->step == s.pinAt && !pinned_) {
            w_.compare->pin();
            pinned_ = true;
        }
        // A token forced otherwise before this step: back to it, and on from there.
        if (firstForcedDifference(forcedOf(*r), s.forced, r->step) >= 0) {
            awaiting_ = tr("Back from step %1, to a token forced otherwise").arg(r->step);
            c->back();
            return;
        }
        const auto due = std::find_if(s.forced.begin(), s.forced.end(),
                                      [&r](const auto& f) { return f.first == r->step; });
        if (r->step < s.step && due != s.forced.end()) {
            awaiting_ = tr("the forced token of step %1").arg(r->step + 1);
            c->force(due->second); // instead of the model's choice, as a click on the chart does
            return;
        }
        const bool ended = r->step < s.step && r->finished;
        if (ended && !options_.stepsAtMost)
            return fail(tr("the model finished \"%1\" after %2 token(s); the step asks for %3")
                            .arg(r->decodedText)
                            .arg(r->step)
                            .arg(s.step));
        if (r->step < s.step && !ended) {
            awaiting_ = tr("Step from step %1 to %2").arg(r->step).arg(s.step);
            c->step();
            return;
        }
        if (r->step > s.step) {
            awaiting_ = tr("Back from step %1 to %2").arg(r->step).arg(s.step);
            c->back();
            return;
        }
        if (w_.state->headsOff() != s.headsOff) {
            awaiting_ = tr("the run again with the step's heads switched off");
            w_.state->setHeadsOff(s.headsOff); // the tokens decoded are kept and run again
            return;
        }
    }
    if (!applyView())
        return;
    if (c->busy()) {
        awaiting_ = tr("the run in the step's colours");
        return; // the colour source asked the worker for another result
    }
    if (r && s.tab == QLatin1String("inside")) {
        const auto& in = w_.inside->shownInside();
        const auto want = w_.inside->wanted();
        if (!in || in->step != r->step || in->row.query.kind != want.kind ||
            in->row.query.layer != want.layer || in->row.query.head != want.head ||
            in->row.query.row != want.row) {
            awaiting_ = tr("the Inside page's row (%1)")
                            .arg(in ? tr("it shows step %1").arg(in->step) : tr("none shown yet"));
            return; // insideReady brings us back
        }
    }
    if (s.tab == QLatin1String("positional") && w_.positional->busy()) {
        awaiting_ = tr("the positional page");
        return; // busyChanged brings us back
    }
    if ((s.tab == QLatin1String("attention") || s.zoom) && w_.attention->busy()) {
        awaiting_ = tr("the detail heatmap");
        return; // the detail heatmap of a long text: busyChanged brings us back
    }
    // Once the heatmap has its cells: a new shape shows the whole map.
    if (s.zoom && !sameZoom(w_.attention->zoom(), s.zoom))
        w_.attention->setZoom(*s.zoom);
    if (s.tab == QLatin1String("heads") || options_.headScores) {
        auto* heads = w_.heads;
        heads->ensureScores();
        if (heads->computing() || heads->scores().empty()) {
            awaiting_ = tr("the head scores");
            return; // scoresChanged brings us back
        }
    }
    awaiting_ = tr("the training run");
    if (!reachTraining())
        return;
    awaiting_.clear();
    quiet_->stop();
    arrived_ = true;
    Q_EMIT arrivedAtTarget();
}

bool WindowDriver::applyView() {
    const auto& s = target_;
    const auto r = w_.controller->current();
    auto* state = w_.state;
    if (r) {
        const QString name = QString::fromStdString(r->model->config().name);
        const bool hasKind = !s.kind || r->snapshot->has(*s.kind);
        if (!hasKind && !options_.remembered) {
            fail(tr("%1 has no %2 attention").arg(name, kindName(*s.kind)));
            return false;
        }
        if (s.kind && hasKind)
            state->setKind(*s.kind);
        state->setSelection(s.layer, s.head); // clamped to what the kind has
        if ((state->layer() != s.layer || state->head() != s.head) && !options_.remembered) {
            const auto& b = r->snapshot->block(state->kind());
            fail(tr("%1's %2 attention has layers 0–%3 and heads 0–%4 (or mean), not layer %5, head %6")
                     .arg(name, kindName(state->kind()))
                     .arg(b.layers - 1)
                     .arg(b.heads - 1)
                     .arg(s.layer)
                     .arg(s.head == core::kMeanHead ? tr("mean") : QString::number(s.head)));
            return false;
        }
    } else {
        if (s.kind)
            state->setKind(*s.kind);
        state->setSelection(s.layer, s.head);
    }
    state->setScaleMode(s.scale);
    if (!s.colorMap.isEmpty())
        state->setColorMap(s.colorMap);
    if (s.lines)
        state->setLinesShown(*s.lines);
    if (s.markRow >= 0)
        state->setMarkedToken(Qt::Horizontal, s.markRow);
    else if (s.markColumn >= 0)
        state->setMarkedToken(Qt::Vertical, s.markColumn);
    else
        state->setMarkedToken(Qt::Horizontal, -1);
    const auto page = pageNamed(s.tab);
    if (!page) {
        fail(tr("no page \"%1\"").arg(s.tab));
        return false;
    }
    w_.showPage(*page);
    if (w_.currentPage() != *page) {
        fail(tr("%1 has no %2 page")
                 .arg(r ? QString::fromStdString(r->model->config().name) : tr("the model"), s.tab));
        return false;
    }
    w_.inside->setStage(s.tab == QLatin1String("inside") ? s.insideStage : 0);
    Q_EMIT viewSet();
    return true;
}

bool WindowDriver::reachTraining() {
    QString message;
    switch (TrainTabDriver::reach(*w_.train, target_, &message)) {
    case TrainTabDriver::Reach::There:
        return true;
    case TrainTabDriver::Reach::Waiting:
        if (!message.isEmpty())
            Q_EMIT waiting(message);
        // A run's rows and frames wake the driver up to 100,000 steps long: waiting for them is no request
        // of the window that might never settle.
        --requests_;
        return false; // the tab's progress brings us back
    case TrainTabDriver::Reach::Failed:
        fail(message);
        return false;
    }
    return false;
}

WindowState WindowDriver::capture() const {
    WindowState s;
    s.model = w_.opener->directory();
    s.text = w_.sourceText();
    const auto* c = w_.controller;
    const auto r = c->current();
    s.step = r ? r->step : 0;
    if (r)
        s.forced = forcedOf(*r);
    s.zoom = w_.attention->zoom();
    s.sampling = w_.attention->sampling();
    s.pastMaxLen = c->pastMaxLen();
    s.headsOff = w_.state->headsOff();
    s.tab = pageName(w_.currentPage());
    const auto* state = w_.state;
    s.kind = state->kind();
    s.layer = state->layer();
    s.head = state->head();
    if (state->markIndex() >= 0)
        (state->markOrientation() == Qt::Horizontal ? s.markRow : s.markColumn) = state->markIndex();
    s.scale = state->scaleMode();
    s.valueWeighted = state->valueWeighted();
    s.colorMap = state->colorMap().name();
    s.lines = state->linesShown();
    s.insideStage = s.tab == QLatin1String("inside") ? w_.inside->stage() : 0;
    TrainTabDriver::capture(*w_.train, s);
    return s;
}

} // namespace ui
