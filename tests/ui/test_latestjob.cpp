// The background job where the newest request wins: one job at a time, a waiting one replaced, results
// of superseded or forgotten jobs dropped, errors as text, and an owner that goes away mid-job.

#include "ui/base/LatestJob.h"

#include <QCoreApplication>
#include <QSignalSpy>
#include <QTest>

#include <atomic>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace {

// How long a wait for something that must happen may take: long enough for a machine busy with a build,
// and reached only when the thing never happens.
constexpr int kLong = 60000;

// A job that runs until the test opens the gate, so the test decides what is running when: entered says the
// job has started on the pool's thread, so it is running, no longer waiting to be replaced.
struct Gate {
    std::atomic<bool> entered{false};
    std::atomic<bool> open{false};
    void wait() {
        entered = true;
        while (!open.load())
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
};

} // namespace

class TestLatestJob : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void deliversResult() {
        ui::LatestJob job;
        QSignalSpy busy(&job, &ui::LatestJob::busyChanged);
        int got = 0;
        QString error = QStringLiteral("unset");
        job.start([] { return 42; },
                  [&](int value, const QString& e) {
                      got = value;
                      error = e;
                  });
        QVERIFY(job.busy());
        QTRY_VERIFY_WITH_TIMEOUT(!job.busy(), kLong);
        QCOMPARE(got, 42);
        QVERIFY(error.isEmpty());
        QCOMPARE(busy.count(), 2);
    }

    void newerJobWins() {
        ui::LatestJob job;
        Gate gate;
        QStringList delivered, ran;
        std::mutex ranMutex;
        const auto work = [&](const QString& name, bool gated) {
            return [&, name, gated] {
                if (gated)
                    gate.wait();
                const std::lock_guard<std::mutex> lock(ranMutex);
                ran << name;
                return name;
            };
        };
        const auto done = [&](QString name, const QString&) { delivered << name; };
        job.start(work(QStringLiteral("first"), true), done);
        QTRY_VERIFY_WITH_TIMEOUT(gate.entered.load(), kLong); // the first is running now
        job.start(work(QStringLiteral("second"), false), done);
        job.start(work(QStringLiteral("third"), false), done); // replaces the second, still waiting
        gate.open = true;
        QTRY_VERIFY_WITH_TIMEOUT(!job.busy(), kLong);
        // The one thread ran the first to its end, which posted its result, before the third: that result has
        // been handled by now, so nothing more can come.
        QCoreApplication::processEvents();
        QCOMPARE(delivered, QStringList{QStringLiteral("third")});
        const std::lock_guard<std::mutex> lock(ranMutex);
        QCOMPARE(ran, (QStringList{QStringLiteral("first"), QStringLiteral("third")}));
    }

    void atMostOneRunsAtATime() {
        // A burst of 20 while the first runs: the first, held at the gate, and the last run, one after the
        // other; each one between was replaced while it waited.
        ui::LatestJob job;
        Gate gate;
        std::atomic<int> running{0}, most{0}, runs{0};
        QList<int> delivered;
        for (int i = 0; i < 20; ++i) {
            job.start(
                [&, i] {
                    const int now = ++running;
                    int seen = most.load();
                    while (now > seen && !most.compare_exchange_weak(seen, now)) {
                    }
                    gate.wait(); // a second thread of the job's would enter too, while this one holds
                    --running;
                    ++runs;
                    return i;
                },
                [&](int v, const QString&) { delivered << v; });
            if (i == 0)
                QTRY_VERIFY_WITH_TIMEOUT(gate.entered.load(), kLong);
            if (i % 5 == 0)
                QCoreApplication::processEvents(); // requests come with the event loop turning
        }
        gate.open = true;
        QTRY_VERIFY_WITH_TIMEOUT(!job.busy(), kLong);
        QCOMPARE(most.load(), 1);
        QCOMPARE(delivered, QList<int>{19});
        QCOMPARE(runs.load(), 2);
    }

    void forgetDropsResults() {
        ui::LatestJob job;
        QSignalSpy busy(&job, &ui::LatestJob::busyChanged);
        Gate gate;
        bool delivered = false;
        job.start(
            [&] {
                gate.wait();
                return 1;
            },
            [&](int, const QString&) { delivered = true; });
        QTRY_VERIFY_WITH_TIMEOUT(gate.entered.load(), kLong); // running: forget() cannot just unqueue it
        job.forget();
        QVERIFY(!job.busy());
        QCOMPARE(busy.count(), 2);
        gate.open = true;
        // The next job runs on the same one thread after the forgotten one has posted its result; once the
        // next one's is delivered, the forgotten one's has been handled too.
        int next = 0;
        job.start([] { return 2; }, [&](int v, const QString&) { next = v; });
        QTRY_COMPARE_WITH_TIMEOUT(next, 2, kLong);
        QVERIFY(!delivered);
    }

    void exceptionBecomesError() {
        ui::LatestJob job;
        QString error;
        int value = -1;
        job.start([]() -> int { throw std::runtime_error("model.safetensors: tensor 'x' is short"); },
                  [&](int v, const QString& e) {
                      value = v;
                      error = e;
                  });
        QTRY_VERIFY_WITH_TIMEOUT(!job.busy(), kLong);
        QCOMPARE(error, QStringLiteral("model.safetensors: tensor 'x' is short"));
        QCOMPARE(value, 0);
    }

    void ownerDeletedMidJob() {
        auto* owner = new QObject;
        auto* job = new ui::LatestJob(owner);
        bool delivered = false;
        std::atomic<bool> started{false}, ownerGoing{false}, finished{false};
        // The owner says it is going before it deletes its children, the job among them: the job runs on
        // until then, so it is mid-run when its owner goes, however slow the machine. (A minute at most, so
        // that a job that is never told fails the test instead of hanging it.)
        connect(owner, &QObject::destroyed, this, [&] { ownerGoing = true; });
        job->start(
            [&] {
                started = true;
                for (int ms = 0; !ownerGoing.load() && ms < kLong; ++ms)
                    std::this_thread::sleep_for(std::chrono::milliseconds(1));
                finished = true;
                return 1;
            },
            [&](int, const QString&) { delivered = true; });
        QTRY_VERIFY_WITH_TIMEOUT(started.load(), kLong);
        delete owner; // waits for the running job; its result has nowhere to go
        QVERIFY(finished.load());
        QVERIFY(ownerGoing.load());
        QCoreApplication::processEvents(); // what the job posted went with the job
        QVERIFY(!delivered);
    }
};

QTEST_MAIN(TestLatestJob)
#include "test_latestjob.moc"
