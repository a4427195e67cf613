#pragma once
// One background job at a time, where only the newest request counts: loading a model, scoring the heads.
// A request made while one runs takes the place of any request still waiting, so a burst of them costs one
// run more at most, never a queue of stale work; the result reaches its callback on the owner's thread, and
// only when nothing newer was asked for since.

#include <QObject>
#include <QString>
#include <QThreadPool>

#include <functional>
#include <memory>
#include <type_traits>
#include <utility>

namespace ui {

class LatestJob : public QObject {
    Q_OBJECT
public:
    explicit LatestJob(QObject* parent = nullptr);
    /// Drops the waiting job and waits for the running one, whose result is dropped too.
    ~LatestJob() override;

    /// Runs work() on this object's own thread, after the job running now (if any); done(result, error)
    /// follows on this object's thread unless start() or forget() was called again in between. error is
    /// empty on success; when work() threw, it holds the exception's message and result is a default value.
    /// work must own what it reads (it runs on another thread); done may use the owner.
    template <typename Work, typename Done> void start(Work work, Done done) {
        using Result = std::decay_t<std::invoke_result_t<Work&>>;
        launch([work = std::move(work), done = std::move(done)]() mutable -> std::function<void()> {
            auto result = std::make_shared<Result>();
            const QString error = errorOf([&] { *result = work(); });
            return [done, result, error]() mutable { done(std::move(*result), error); };
        });
    }
    /// Drops the waiting job and the result of the running one; busy() turns false.
    void forget();
    /// From start() until its result is delivered or forgotten.
    bool busy() const { return busy_; }

    /// Runs f and returns the message of what it threw, empty when it returned.
    static QString errorOf(const std::function<void()>& f);

Q_SIGNALS:
    void busyChanged(bool busy);

private:
    /// job runs on the pool and returns what to do with its result on this object's thread.
    void launch(std::function<std::function<void()>()> job);
    void setBusy(bool on);

    QThreadPool pool_; // one thread: jobs never overlap and never take the global pool's threads
    quint64 serial_ = 0;
    bool busy_ = false;
};

} // namespace ui
