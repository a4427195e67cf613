#include "ui/run/AnalysisController.h"

#include "core/base/Errors.h"
#include "core/model/Model.h"
#include "ui/base/ViewState.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QScopedValueRollback>
#include <QThread>
#include <QTimer>

#include <utility>

namespace ui {

using Op = SessionWorker::Op;

AnalysisController::AnalysisController(ViewState* view, QObject* parent)
    : QObject(parent), view_(view ? view : new ViewState(this)) {
    connect(view_, &ViewState::headsOffChanged, this, &AnalysisController::onHeadsOff);
    connect(view_, &ViewState::valueWeightedChanged, this, &AnalysisController::onValueWeighted);
    qRegisterMetaType<RunResultPtr>();
    qRegisterMetaType<InsideResultPtr>();
    thread_ = new QThread(this);
    thread_->setObjectName(QStringLiteral("analysis"));
    worker_ = new SessionWorker;
    worker_->moveToThread(thread_);
    connect(thread_, &QThread::finished, worker_, &QObject::deleteLater);
    connect(worker_, &SessionWorker::resultReady, this, &AnalysisController::onResult, Qt::QueuedConnection);
    connect(worker_, &SessionWorker::failed, this, &AnalysisController::onFailed, Qt::QueuedConnection);
    connect(
        worker_, &SessionWorker::insideReady, this,
        [this](const InsideResultPtr& r) {
            if (r->run == run_)
                Q_EMIT insideReady(r);
        },
        Qt::QueuedConnection);
    connect(
        worker_, &SessionWorker::insideFailed, this,
        [this](const QString& message, quint64 run) {
            if (run == run_)
                Q_EMIT insideFailed(message);
        },
        Qt::QueuedConnection);
    connect(worker_, &SessionWorker::processed, this, &AnalysisController::onProcessed, Qt::QueuedConnection);
    connect(worker_, &SessionWorker::progressed, this, &AnalysisController::onProgress, Qt::QueuedConnection);
    thread_->start();

    debounce_ = new QTimer(this);
    debounce_->setSingleShot(true);
    debounce_->setInterval(kDebounceMs);
    connect(debounce_, &QTimer::timeout, this, &AnalysisController::analyzeNow);
    // "Busy" is announced only when work outlasts a glance, so quick requests don't flicker the indicator.
    busyDelay_ = new QTimer(this);
    busyDelay_->setSingleShot(true);
    busyDelay_->setInterval(kGlanceMs);
    connect(busyDelay_, &QTimer::timeout, this, [this] {
        if (passes_.running && !passes_.said) {
            passes_.said = analysingSaid_ = true; // the passes outlast a glance: say how far they are
            Q_EMIT analysing(passes_.tokens, passes_.done, passes_.layers);
        }
        updateBusy();
    });
    showTimer_ = new QTimer(this);
    showTimer_->setSingleShot(true);
    showTimer_->setInterval(0);
    connect(showTimer_, &QTimer::timeout, this, [this] {
        if (pending_)
            show(std::exchange(pending_, nullptr));
    });
}

AnalysisController::~AnalysisController() {
    worker_->cancel();
    thread_->quit();
    thread_->wait();
}

void AnalysisController::setGlanceMs(int ms) {
    busyDelay_->setInterval(std::max(ms, 0));
}

void AnalysisController::clearRun() {
    endAnalysing();
    ++run_;
    history_.clear();
    servedFromHistory_.clear();
    pending_.reset();
    showTimer_->stop();
    // What said it was analysing (of this run or one before it) says so no more.
    const bool had = current_ != nullptr || analysingSaid_;
    analysingSaid_ = false;
    current_.reset();
    if (had)
        Q_EMIT cleared();
}

void AnalysisController::setModel(std::shared_ptr<const core::Model> model) {
    model_ = std::move(model);
    {
        // The heads were the last model's; the worker's next run starts with them all on anyway.
        const QScopedValueRollback quiet(adopting_, true);
        view_->setHeadsModel(model_ ? std::shared_ptr<const core::ModelConfig>(model_, &model_->config())
                                    : nullptr);
    }
    pastMaxLen_ = false; // reading past max_len was accepted for the model it warned about, not the next
    clearRun();
    SessionWorker::Request r;
    r.op = Op::SetModel;
    r.model = model_;
    send(std::move(r));
    ablationSent_ = lastSent_;
    if (!text_.isEmpty())
        analyzeNow();
}

void AnalysisController::setText(const QString& text) {
    text_ = text;
    debounce_->start();
    noteActivity();
}

void AnalysisController::analyzeNow() {
    debounce_->stop();
    if (text_.isEmpty()) {
        const bool shown = current_ != nullptr;
        clearRun();
        if (!shown)
            Q_EMIT cleared(); // even with nothing shown: the window drops the error of the last text
        updateBusy();
        return;
    }
    SessionWorker::Request r;
    r.text = text_.toStdString();
    startRun(std::move(r));
}

void AnalysisController::analyzeIds(std::vector<int64_t> src, std::vector<int64_t> tgt, const QString& text) {
    debounce_->stop();
    text_ = text;
    SessionWorker::Request r;
    r.text = text.toStdString();
    r.byIds = true;
    r.srcIds = std::move(src);
    r.tgtIds = std::move(tgt);
    startRun(std::move(r));
}

void AnalysisController::startRun(SessionWorker::Request r) {
    // The old result stays on screen until the new one arrives; its run is over, though.
    endAnalysing();
    ++run_;
    history_.clear();
    servedFromHistory_.clear();
    pending_.reset();
    r.op = Op::Analyze;
    r.pastMaxLen = pastMaxLen_;
    r.ablation = view_->headsOff(); // the worker holds the heads in the run it makes of this
    send(std::move(r));
    analyzedRun_ = run_;
}

void AnalysisController::send(SessionWorker::Request r) {
    r.run = run_;
    r.seq = ++lastSent_;
    worker_->post(std::move(r));
    noteActivity();
}

void AnalysisController::sendOp(Op op, int64_t token) {
    SessionWorker::Request r;
    r.op = op;
    r.token = token;
    send(std::move(r));
}

bool AnalysisController::readyToDecode() {
    // A key pressed within the debounce after the last keystroke (Enter right after typing) decodes the text
    // as typed: its analysis goes first, and the request follows it in the worker's queue.
    if (debounce_->isActive())
        analyzeNow();
    return analyzedRun_ == run_; // shown, or sent and not failed (a failure starts another run)
}

void AnalysisController::step() {
    if (readyToDecode())
        sendOp(Op::Step);
}

void AnalysisController::runToEnd() {
    if (readyToDecode())
        sendOp(Op::RunToEnd);
}

void AnalysisController::force(int64_t token) {
    if (current_ && current_->run == run_)
        sendOp(Op::Force, token);
}

void AnalysisController::back() {
    if (pending_)
        show(std::exchange(pending_, nullptr)); // step from what the worker has done, not what was painted
    if (!current_ || current_->run != run_ || current_->step == 0)
        return;
    const bool shown = showFromHistory(static_cast<std::size_t>(current_->step - 1));
    sendOp(Op::Back);
    if (shown)
        servedFromHistory_.insert(lastSent_);
}

void AnalysisController::reset() {
    if (pending_)
        show(std::exchange(pending_, nullptr));
    if (!current_ || current_->run != run_ || current_->step == 0)
        return;
    const bool shown = showFromHistory(0);
    sendOp(Op::Reset);
    if (shown)
        servedFromHistory_.insert(lastSent_);
}

bool AnalysisController::showFromHistory(std::size_t step) {
    // Requests in flight are those after the last one processed; all but the Inside page's (which change
    // nothing) must already be on screen.
    const auto inFlight = lastSent_ - lastProcessed_ - insideSent_.size();
    const auto kept = history_.at(step);
    if (inFlight != servedFromHistory_.size() || !kept)
        return false;
    // A result of a request sent before the heads or the colour source changed is not what Back would show.
    if (kept->ablation != view_->headsOff() || kept->valueWeighted != view_->valueWeighted())
        return false;
    show(kept);
    return true;
}

void AnalysisController::setSampling(const core::SamplingSettings& s) {
    sampling_ = s;
    SessionWorker::Request r;
    r.op = Op::SetSampling;
    r.sampling = s;
    send(std::move(r));
    Q_EMIT samplingChanged(sampling_);
}

void AnalysisController::onHeadsOff(const core::HeadAblation& heads) {
    if (adopting_)
        return;
    history_.clear(); // computed with the heads as they were; Back recomputes
    SessionWorker::Request r;
    r.op = Op::SetAblation;
    r.ablation = heads;
    send(std::move(r));
    ablationSent_ = lastSent_;
}

void AnalysisController::onValueWeighted(bool on) {
    history_.clear();
    SessionWorker::Request r;
    r.op = Op::SetValueWeighted;
    r.valueWeighted = on;
    send(std::move(r));
}

void AnalysisController::setPastMaxLen(bool past) {
    if (past == pastMaxLen_)
        return;
    pastMaxLen_ = past;
    if (!text_.isEmpty())
        analyzeNow(); // the run's length limit is fixed when it starts
}

void AnalysisController::requestInside(const core::InsideQuery& query) {
    if (!current_ || current_->run != run_)
        return; // nothing analysed that a row could belong to
    SessionWorker::Request r;
    r.op = Op::Inside;
    r.inside = query;
    send(std::move(r));
    insideSent_.insert(lastSent_);
}

void AnalysisController::onResult(const RunResultPtr& r) {
    // The worker applies heads in order: from the last change sent on, its results carry the heads it
    // really has, which differ from ours only when it could not switch them (and said why).
    if (r->request >= ablationSent_ && r->ablation != view_->headsOff()) {
        const QScopedValueRollback quiet(adopting_, true);
        view_->setHeadsOff(r->ablation);
        history_.clear();
    }
    if (r->run != run_)
        return; // a superseded text or model
    endAnalysing();
    history_.keep(r);
    if (servedFromHistory_.count(r->request))
        return;
    pending_ = r;
    if (!showTimer_->isActive())
        showTimer_->start();
}

int AnalysisController::historySize() const {
    return history_.size();
}

void AnalysisController::onFailed(const QString& message, quint64 run, bool analysis) {
    if (run != run_)
        return;
    endAnalysing();
    if (analysis)
        clearRun(); // the text on screen is not the one typed: show nothing rather than the wrong thing
    Q_EMIT failed(message);
}

void AnalysisController::onProcessed(quint64 seq) {
    lastProcessed_ = std::max<uint64_t>(lastProcessed_, seq);
    servedFromHistory_.erase(servedFromHistory_.begin(), servedFromHistory_.upper_bound(lastProcessed_));
    insideSent_.erase(insideSent_.begin(), insideSent_.upper_bound(lastProcessed_));
    updateBusy();
}

void AnalysisController::onProgress(quint64 run, qulonglong tokens, int layersDone, int layers) {
    if (run != run_)
        return; // a superseded text: its passes are not what the window waits for
    passes_.running = true;
    passes_.tokens = tokens;
    passes_.done = layersDone;
    passes_.layers = layers;
    if (passes_.said)
        Q_EMIT analysing(tokens, layersDone, layers);
    else if (!busyDelay_->isActive() && lastBusy_) {
        passes_.said = analysingSaid_ = true; // busy a while already (another request went first): say it now
        Q_EMIT analysing(tokens, layersDone, layers);
    }
}

void AnalysisController::endAnalysing() {
    passes_ = {};
}

void AnalysisController::show(const RunResultPtr& r) {
    analysingSaid_ = false; // the result takes the place of what said it was analysing
    pending_.reset();
    showTimer_->stop();
    current_ = r;
    Q_EMIT resultChanged(r);
    updateBusy();
}

void AnalysisController::noteActivity() {
    if (!lastBusy_ && !busyDelay_->isActive())
        busyDelay_->start();
}

void AnalysisController::updateBusy() {
    const bool b = busy();
    if (!b) {
        busyDelay_->stop();
        Q_EMIT idle();
    } else if (busyDelay_->isActive())
        return; // not long enough yet
    if (b != lastBusy_) {
        lastBusy_ = b;
        Q_EMIT busyChanged(b);
    }
}

bool AnalysisController::busy() const {
    return debounce_->isActive() || showTimer_->isActive() || lastProcessed_ != lastSent_;
}

bool AnalysisController::waitUntilIdle(int timeoutMs) {
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < timeoutMs) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
        if (!busy())
            return true;
        QThread::msleep(1);
    }
    return false;
}

} // namespace ui
