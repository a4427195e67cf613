#include "ui/AnalysisController.h"

#include "ui/SessionWorker.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QThread>
#include <QTimer>

#include <utility>

namespace ui {

using Op = SessionWorker::Op;

AnalysisController::AnalysisController(QObject* parent) : QObject(parent) {
    qRegisterMetaType<RunResultPtr>();
    thread_ = new QThread(this);
    thread_->setObjectName(QStringLiteral("analysis"));
    worker_ = new SessionWorker;
    worker_->moveToThread(thread_);
    connect(thread_, &QThread::finished, worker_, &QObject::deleteLater);
    connect(worker_, &SessionWorker::resultReady, this, &AnalysisController::onResult, Qt::QueuedConnection);
    connect(worker_, &SessionWorker::failed, this, &AnalysisController::onFailed, Qt::QueuedConnection);
    connect(worker_, &SessionWorker::idle, this, &AnalysisController::updateBusy, Qt::QueuedConnection);
    thread_->start();

    debounce_ = new QTimer(this);
    debounce_->setSingleShot(true);
    debounce_->setInterval(kDebounceMs);
    connect(debounce_, &QTimer::timeout, this, &AnalysisController::analyzeNow);
    // "Busy" is announced only when work outlasts a glance, so quick requests don't flicker the indicator.
    busyDelay_ = new QTimer(this);
    busyDelay_->setSingleShot(true);
    busyDelay_->setInterval(150);
    connect(busyDelay_, &QTimer::timeout, this, &AnalysisController::updateBusy);
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

void AnalysisController::setModel(std::shared_ptr<const core::Model> model) {
    model_ = std::move(model);
    ++run_;
    history_.clear();
    current_.reset();
    optimistic_ = 0;
    SessionWorker::Request r;
    r.op = Op::SetModel;
    r.model = model_;
    r.run = run_;
    send(std::move(r));
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
    ++run_;
    optimistic_ = 0;
    history_.clear();
    pending_.reset();
    if (text_.isEmpty()) {
        current_.reset();
        Q_EMIT cleared();
        updateBusy();
        return;
    }
    SessionWorker::Request r;
    r.op = Op::Analyze;
    r.text = text_.toStdString();
    r.run = run_;
    send(std::move(r));
}

void AnalysisController::post(int op, int64_t token) {
    SessionWorker::Request r;
    r.op = static_cast<Op>(op);
    r.token = token;
    r.run = run_;
    send(std::move(r));
}

void AnalysisController::step() {
    post(static_cast<int>(Op::Step));
}

void AnalysisController::back() {
    if (pending_)
        show(pending_); // step from what the worker has done, not from what was last painted
    if (!current_ || current_->step == 0)
        return;
    // When nothing is in flight the previous step is already in history: show it now, and let the worker
    // rewind its cache in the background; its own result of the rewind is then redundant.
    const auto prev = static_cast<std::size_t>(current_->step - 1);
    if (!worker_->busy() && prev < history_.size() && history_[prev]) {
        show(history_[prev]);
        ++optimistic_;
    }
    post(static_cast<int>(Op::Back));
}

void AnalysisController::reset() {
    if (pending_)
        show(pending_);
    if (!current_)
        return;
    if (!worker_->busy() && !history_.empty() && history_[0]) {
        show(history_[0]);
        ++optimistic_;
    }
    post(static_cast<int>(Op::Reset));
}

void AnalysisController::runToEnd() {
    post(static_cast<int>(Op::RunToEnd));
}

void AnalysisController::force(int64_t token) {
    post(static_cast<int>(Op::Force), token);
}

void AnalysisController::setSampling(const core::SamplingSettings& s) {
    sampling_ = s;
    SessionWorker::Request r;
    r.op = Op::SetSampling;
    r.sampling = s;
    r.run = run_;
    send(std::move(r));
}

void AnalysisController::onResult(const RunResultPtr& r) {
    if (r->run != run_)
        return; // a superseded text or model
    const auto step = static_cast<std::size_t>(r->step);
    // History holds the current branch only: a result at step k replaces k and drops what came after.
    history_.resize(step + 1);
    history_[step] = r;
    if (optimistic_ > 0) {
        --optimistic_;
        return;
    }
    pending_ = r;
    if (!showTimer_->isActive())
        showTimer_->start();
}

void AnalysisController::onFailed(const QString& message, quint64 run) {
    if (run != run_)
        return;
    Q_EMIT failed(message);
}

void AnalysisController::show(const RunResultPtr& r) {
    pending_.reset();
    showTimer_->stop();
    current_ = r;
    Q_EMIT resultChanged(r);
    updateBusy();
}

void AnalysisController::send(SessionWorker::Request r) {
    worker_->post(std::move(r));
    noteActivity();
}

void AnalysisController::noteActivity() {
    if (!lastBusy_ && !busyDelay_->isActive())
        busyDelay_->start();
}

void AnalysisController::updateBusy() {
    const bool b = busy();
    if (!b)
        busyDelay_->stop();
    else if (busyDelay_->isActive())
        return; // not long enough yet
    if (b != lastBusy_) {
        lastBusy_ = b;
        Q_EMIT busyChanged(b);
    }
}

bool AnalysisController::busy() const {
    return debounce_->isActive() || showTimer_->isActive() || worker_->busy();
}

bool AnalysisController::waitUntilIdle(int timeoutMs) {
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < timeoutMs) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
        // Results are delivered by queued signals after the worker is idle: drain them too.
        if (!busy()) {
            QCoreApplication::processEvents();
            if (!busy())
                return true;
        }
        QThread::msleep(1);
    }
    return false;
}

} // namespace ui
