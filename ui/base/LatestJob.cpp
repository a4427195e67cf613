#include "ui/base/LatestJob.h"

#include <exception>

namespace ui {

LatestJob::LatestJob(QObject* parent) : QObject(parent) {
    pool_.setMaxThreadCount(1);
}

LatestJob::~LatestJob() {
    // The running job posts its result to this object, so this object outlives it; what it posts is
    // discarded with the object.
    pool_.clear();
    pool_.waitForDone();
}

void LatestJob::launch(std::function<std::function<void()>()> job) {
    const quint64 serial = ++serial_;
    setBusy(true);
    pool_.clear(); // a job still waiting is older than this one: it would only be dropped
    pool_.start([this, serial, job = std::move(job)] {
        auto deliver = job();
        QMetaObject::invokeMethod(
            this,
            [this, serial, deliver = std::move(deliver)] {
                if (serial != serial_)
                    return; // a newer request replaced this one, or it was forgotten
                setBusy(false);
                deliver();
            },
            Qt::QueuedConnection);
    });
}

void LatestJob::forget() {
    ++serial_;
    pool_.clear();
    setBusy(false);
}

QString LatestJob::errorOf(const std::function<void()>& f) {
    try {
        f();
    } catch (const std::exception& e) {
        const QString message = QString::fromStdString(e.what());
        return message.isEmpty() ? tr("unknown error") : message; // empty means success to the caller
    } catch (...) {
        return tr("unknown error");
    }
    return QString();
}

void LatestJob::setBusy(bool on) {
    if (on == busy_)
        return;
    busy_ = on;
    Q_EMIT busyChanged(on);
}

} // namespace ui
