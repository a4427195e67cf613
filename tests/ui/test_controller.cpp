// The analysis controller and its worker thread: latest wins, history served only when it is exact,
// failures, the memory budget of the history, the heads switched off entering through the view state, and
// shutting down in the middle of a run.

#include "tests/support/TestModels.h"

#include "core/run/Session.h"
#include "ui/base/ViewState.h"
#include "ui/run/AnalysisController.h"
#include "ui/run/SessionWorker.h"

#include <QElapsedTimer>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QThread>
#include <QtTest>

#include <atomic>
#include <chrono>
#include <thread>

namespace {

// Big enough that one analysis takes tens of milliseconds, so requests pile up behind it.
std::shared_ptr<const core::Model> slowModel() {
    auto c = smallConfig(core::Architecture::DecoderOnly, core::PositionalEncoding::Sinusoidal);
    c.decoderLayers = 6;
    c.dModel = 256;
    c.heads = 8;
    c.dFf = 1024;
    c.tgtVocabSize = c.srcVocabSize = 99;
    c.maxLen = 512;
    return randomModel(c, 5);
}

std::shared_ptr<const core::Model> quickModel() {
    auto c = smallConfig(core::Architecture::EncoderDecoder, core::PositionalEncoding::Sinusoidal);
    c.srcVocabSize = c.tgtVocabSize = 99;
    return randomModel(c, 2);
}

} // namespace

class TestController : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void workerDropsStaleRequests();
    void controllerShowsOnlyTheLatestText();
    void backWaitsForResultsInFlight();
    void analysisFailureClears();
    void modelChangeClears();
    void headsOffEnterThroughTheViewState();
    void historyBudget();
    void shutdownDuringRun();
};

void TestController::workerDropsStaleRequests() {
    qRegisterMetaType<ui::RunResultPtr>();
    const std::string longText(300, 'a');
    // The long analysis holds the worker, once its result is out, until the requests behind it are posted:
    // they are posted while it runs however slow the machine, and it cannot end before they are.
    std::atomic<bool> holding{false}, posted{false};
    QThread thread;
    auto* worker = new ui::SessionWorker;
    worker->moveToThread(&thread);
    thread.start();
    const auto stop = qScopeGuard([&] {
        posted = true; // a failed check must not leave the worker held
        thread.quit();
        thread.wait();
        delete worker;
    });
    connect(
        worker, &ui::SessionWorker::resultReady, worker,
        [&](const ui::RunResultPtr& r) {
            if (r->sourceText != QString::fromStdString(longText))
                return;
            holding = true;
            while (!posted.load())
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
        },
        Qt::DirectConnection);
    QStringList analysed;
    connect(worker, &ui::SessionWorker::resultReady, this,
            [&](const ui::RunResultPtr& r) { analysed << r->sourceText; });
    QSignalSpy processed(worker, &ui::SessionWorker::processed);
    uint64_t seq = 0;
    auto post = [&](ui::SessionWorker::Op op, const std::string& text = {}) {
        ui::SessionWorker::Request r;
        r.op = op;
        r.text = text;
        r.model = op == ui::SessionWorker::Op::SetModel ? slowModel() : nullptr;
        r.seq = ++seq;
        worker->post(std::move(r));
    };
    post(ui::SessionWorker::Op::SetModel);
    post(ui::SessionWorker::Op::Analyze, longText); // runs while the next ones are posted
    QTRY_VERIFY_WITH_TIMEOUT(holding.load(), 60000);
    post(ui::SessionWorker::Op::Analyze, "b");
    post(ui::SessionWorker::Op::Step);
    post(ui::SessionWorker::Op::Analyze, "c"); // replaces "b" and its step, which are still waiting
    posted = true;
    // The spy hears `processed` on the worker thread; results reach this thread through its event loop.
    QTRY_COMPARE_WITH_TIMEOUT(processed.count(), 3, 60000);
    QCOMPARE(processed.last().at(0).toULongLong(), seq);
    QTRY_COMPARE_WITH_TIMEOUT(analysed.size(), 2, 60000);
    QCOMPARE(analysed, (QStringList{QString::fromStdString(longText), QStringLiteral("c")}));
    // The last request is done and the worker posted its results before it said so: what is queued for this
    // thread is all there is.
    QCoreApplication::processEvents();
    QCOMPARE(analysed.size(), 2); // and nothing else follows
    QCOMPARE(processed.count(), 3);
    QTRY_VERIFY_WITH_TIMEOUT(!worker->busy(), 60000); // it says it is idle just after its last `processed`
}

void TestController::controllerShowsOnlyTheLatestText() {
    ui::AnalysisController c;
    c.setModel(slowModel());
    QSignalSpy shown(&c, &ui::AnalysisController::resultChanged);
    c.setText(QString(300, QLatin1Char('a')));
    c.analyzeNow();
    QTest::qWait(10);
    c.setText(QStringLiteral("b"));
    c.analyzeNow();
    c.setText(QStringLiteral("c"));
    QVERIFY(c.waitUntilIdle(60000));
    // The long text's result arrives after it was replaced: never shown.
    QCOMPARE(shown.count(), 1);
    QCOMPARE(c.current()->sourceText, QStringLiteral("c"));
}

void TestController::backWaitsForResultsInFlight() {
    ui::AnalysisController c;
    c.setModel(quickModel());
    c.setText(QStringLiteral("abc"));
    QVERIFY(c.waitUntilIdle());
    c.step();
    c.step();
    QVERIFY(c.waitUntilIdle());
    QCOMPARE(c.current()->step, 2);
    QList<int> steps;
    connect(&c, &ui::AnalysisController::resultChanged, this,
            [&](const ui::RunResultPtr& r) { steps << r->step; });
    // The worker finishes a step whose result still waits in the event queue; Back must not take the
    // history's step 1 then, because the worker is at step 3.
    c.step();
    QThread::msleep(300); // no events processed: the result is queued, not shown
    c.back();
    QVERIFY(c.waitUntilIdle());
    QCOMPARE(c.current()->step, 2);
    QVERIFY2(!steps.contains(1), qPrintable(QStringLiteral("shown: %1").arg(steps.size())));
    // With nothing in flight Back is served from history at once, before any event is processed.
    steps.clear();
    c.back();
    QCOMPARE(c.current()->step, 1);
    QCOMPARE(steps, QList<int>{1});
    QVERIFY(c.waitUntilIdle());
    QCOMPARE(steps, QList<int>{1}); // the worker's own result of that Back is not shown again
    QCOMPARE(c.current()->step, 1);
}

void TestController::analysisFailureClears() {
    ui::AnalysisController c;
    c.setModel(quickModel()); // max_len 64
    c.setText(QStringLiteral("abc"));
    QVERIFY(c.waitUntilIdle());
    QVERIFY(c.current());
    QStringList events;
    connect(&c, &ui::AnalysisController::cleared, this, [&] { events << QStringLiteral("cleared"); });
    connect(&c, &ui::AnalysisController::failed, this, [&](const QString& m) { events << m; });
    // A text too long is cut now, not refused; what the worker cannot analyse is a text without a model.
    c.setModel(nullptr);
    QVERIFY(c.waitUntilIdle());
    QCOMPARE(events.size(), 2);
    QCOMPARE(events[0], QStringLiteral("cleared")); // cleared first, so the error shown last stays
    QVERIFY2(events[1].contains(QStringLiteral("no model is loaded")), qPrintable(events[1]));
    QVERIFY(!c.current());
    QSignalSpy shown(&c, &ui::AnalysisController::resultChanged);
    c.step();
    c.runToEnd();
    c.force(5);
    QVERIFY(c.waitUntilIdle());
    QCOMPARE(shown.count(), 0);
}

void TestController::modelChangeClears() {
    ui::AnalysisController c;
    c.setModel(quickModel());
    c.setText(QStringLiteral("abc"));
    QVERIFY(c.waitUntilIdle());
    QSignalSpy cleared(&c, &ui::AnalysisController::cleared);
    QSignalSpy shown(&c, &ui::AnalysisController::resultChanged);
    auto other = quickModel();
    c.setModel(other);
    QCOMPARE(cleared.count(), 1);
    QVERIFY(!c.current());
    QVERIFY(c.waitUntilIdle());
    QCOMPARE(shown.count(), 1); // the text is analysed again on the new model
    QCOMPARE(c.current()->model, other);
}

void TestController::headsOffEnterThroughTheViewState() {
    ui::AnalysisController c;
    auto* view = c.viewState();
    QSignalSpy refused(view, &ui::ViewState::headsOffRefused);
    core::HeadAblation one;
    one.set({core::AttentionKind::Encoder, 0, 1}, true);
    // Before a model there are no heads to switch off.
    QVERIFY(!view->setHeadsOff(one));
    QCOMPARE(refused.count(), 1);
    QVERIFY(view->headsOff().empty());
    const auto model = quickModel();
    c.setModel(model);
    // Set before the text: the analysis itself carries them to the worker.
    QVERIFY(view->setHeadsOff(one));
    c.setText(QStringLiteral("abc"));
    QVERIFY(c.waitUntilIdle());
    QCOMPARE(c.current()->ablation, one);
    core::Session session(model);
    session.setAblation(one);
    session.analyze("abc");
    QCOMPARE(c.current()->snapshot->nextTokenLogProbs, session.snapshot().nextTokenLogProbs);
    // A head the model lacks is refused where it enters, naming it; the run keeps the heads it had.
    core::HeadAblation bad = one;
    bad.set({core::AttentionKind::Cross, 0, 9}, true);
    QVERIFY(!view->setHeadsOff(bad));
    QCOMPARE(refused.count(), 2);
    const auto why = refused.last().at(0).toString();
    QVERIFY2(why.contains(QStringLiteral("cross 0:9")) && why.contains(QStringLiteral("out of range")),
             qPrintable(why));
    QCOMPARE(view->headsOff(), one);
    QVERIFY(c.waitUntilIdle());
    QCOMPARE(c.current()->ablation, one);
    // Switched on again in the view: the run on screen is run again with every head.
    QSignalSpy shown(&c, &ui::AnalysisController::resultChanged);
    QVERIFY(view->setHeadsOff({}));
    QVERIFY(c.waitUntilIdle());
    QCOMPARE(shown.count(), 1);
    QVERIFY(c.current()->ablation.empty());
    // Another model switches them all back on: they were the last model's heads.
    QVERIFY(view->setHeadsOff(one));
    QVERIFY(c.waitUntilIdle());
    QSignalSpy changed(view, &ui::ViewState::headsOffChanged);
    c.setModel(quickModel());
    QCOMPARE(changed.count(), 1);
    QVERIFY(view->headsOff().empty());
    QVERIFY(c.waitUntilIdle());
    QVERIFY(c.current()->ablation.empty());
}

void TestController::historyBudget() {
    ui::AnalysisController c;
    c.setModel(quickModel());
    c.setText(QStringLiteral("hello world"));
    QVERIFY(c.waitUntilIdle());
    const auto bytes0 = c.current()->bytes;
    QVERIFY(bytes0 > 0);
    c.setHistoryBudget(bytes0 * 4); // room for only a few steps
    std::vector<ui::RunResultPtr> seen{c.current()};
    for (int i = 0; i < 12; ++i) {
        c.step();
        QVERIFY(c.waitUntilIdle());
        seen.push_back(c.current());
    }
    QVERIFY2(c.historySize() < 6, qPrintable(QString::number(c.historySize())));
    QVERIFY(c.historySize() >= 1);
    // Back past what history kept is computed again by the worker, and gives the same weights.
    for (int i = 0; i < 12; ++i) {
        c.back();
        QVERIFY(c.waitUntilIdle());
    }
    QCOMPARE(c.current()->step, 0);
    QCOMPARE(c.current()->snapshot->cross.data, seen[0]->snapshot->cross.data);
    QCOMPARE(c.current()->snapshot->nextTokenLogProbs, seen[0]->snapshot->nextTokenLogProbs);
}

void TestController::shutdownDuringRun() {
    QElapsedTimer t;
    {
        ui::AnalysisController c;
        c.setModel(slowModel());
        c.setText(QStringLiteral("x"));
        QVERIFY(c.waitUntilIdle(60000));
        c.runToEnd(); // hundreds of steps on this model
        QTest::qWait(100);
        QVERIFY(c.busy());
        t.start();
    } // the destructor stops the run between two steps
    qInfo("stopped a Run to end in %lld ms", static_cast<long long>(t.elapsed()));
    QVERIFY(t.elapsed() < 5000);
}

QTEST_MAIN(TestController)
#include "test_controller.moc"
