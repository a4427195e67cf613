// The background job where the newest request wins: one job at a time, a waiting one replaced, results
// of superseded or forgotten jobs dropped, errors as text, and an owner that goes away mid-job.

#include "ui/base/LatestJob.h"

#include <QSignalSpy>
#include <QTest>

#include <atomic>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace {

// A job that runs until the test opens the gate, so the test decides what is running when.
struct Gate {
    std::atomic<bool> open{false};
    void wait() const {
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
        QTRY_VERIFY(!job.busy());
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
        QTest::qWait(50); // the first is running now
        job.start(work(QStringLiteral("second"), false), done);
        job.start(work(QStringLiteral("third"), false), done); // replaces the second, still waiting
        gate.open = true;
        QTRY_VERIFY(!job.busy());
        QTest::qWait(50);
        QCOMPARE(delivered, QStringList{QStringLiteral("third")});
        const std::lock_guard<std::mutex> lock(ranMutex);
        QCOMPARE(ran, (QStringList{QStringLiteral("first"), QStringLiteral("third")}));
    }

    void atMostOneRunsAtATime() {
        ui::LatestJob job;
        std::atomic<int> running{0}, most{0}, runs{0};
        int delivered = 0;
        for (int i = 0; i < 20; ++i) {
            job.start(
                [&] {
                    const int now = ++running;
                    int seen = most.load();
                    while (now > seen && !most.compare_exchange_weak(seen, now)) {
                    }
                    std::this_thread::sleep_for(std::chrono::milliseconds(5));
                    --running;
                    ++runs;
                    return 0;
                },
                [&](int, const QString&) { ++delivered; });
            if (i % 5 == 0)
                QTest::qWait(2);
        }
        QTRY_VERIFY(!job.busy());
        QCOMPARE(most.load(), 1);
        QCOMPARE(delivered, 1);
        QVERIFY2(runs.load() < 20, qPrintable(QString::number(runs.load()))); // waiting ones were replaced
    }

    void forgetDropsResults() {
        ui::LatestJob job;
        QSignalSpy busy(&job, &ui::LatestJob::busyChanged);
        bool delivered = false;
        std::atomic<bool> finished{false};
        job.start(
            [&] {
                std::this_thread::sleep_for(std::chrono::milliseconds(100));
                finished = true;
                return 1;
            },
            [&](int, const QString&) { delivered = true; });
        job.forget();
        QVERIFY(!job.busy());
        QCOMPARE(busy.count(), 2);
        QTRY_VERIFY(finished.load());
        QTest::qWait(50);
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
        QTRY_VERIFY(!job.busy());
        QCOMPARE(error, QStringLiteral("model.safetensors: tensor 'x' is short"));
        QCOMPARE(value, 0);
    }

    void ownerDeletedMidJob() {
        auto* owner = new QObject;
        auto* job = new ui::LatestJob(owner);
        bool delivered = false;
        std::atomic<bool> started{false}, finished{false};
        job->start(
            [&] {
                started = true;
                std::this_thread::sleep_for(std::chrono::milliseconds(200));
                finished = true;
                return 1;
            },
            [&](int, const QString&) { delivered = true; });
        QTRY_VERIFY(started.load());
        delete owner; // waits for the running job; its result has nowhere to go
        QVERIFY(finished.load());
        QTest::qWait(50);
        QVERIFY(!delivered);
    }
};

QTEST_MAIN(TestLatestJob)
#include "test_latestjob.moc"
