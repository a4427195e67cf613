// The Train tab with the real widgets: a run starts, its loss curve grows, pausing holds the step,
// the probe's attention is captured as frames the slider scrubs through, and the run is saved; the seed's
// recurrent models train from their presets the same way. With ATTNSCOPE_TEST_SHOTS set, the presets' runs
// are saved as train-reverse-gru.png and train-spam.png (ATTNSCOPE_TEST_PRESET_STEPS=N trains them N steps).

#include "ui/train/TrainPage.h"
#include "ui/views/AttentionGrid.h"

#include <QAbstractButton>
#include <QApplication>
#include <QComboBox>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include <filesystem>

class TestTrainPage : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void trainPauseScrubSave();
    void recurrentPresets_data();
    void recurrentPresets();
    void saveMidRunEndsAndSaves();
    void crashedRunContinues();
    void closingAsksWhileTraining();
    void inductionPreset();
};

namespace {

// How long a wait for what must happen may take before it counts as never happening: a run's first steps,
// its end, its pause. Generous, because a busy machine stretches them: crashedRunContinues took 43 s on two
// cores beside a build, and its continued run alone 194 s beside six busy processes. ctest's limit is above.
constexpr int kLong = 300000;

// Clicks the button named `name` in the message box that is about to open (a modal dialog blocks the test).
void answerNextBox(const QString& name) {
    auto* poll = new QTimer;
    QObject::connect(poll, &QTimer::timeout, poll, [poll, name] {
        auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
        if (!box)
            return;
        for (auto* b : box->buttons())
            if (b->objectName() == name ||
                (name == QLatin1String("cancel") && box->buttonRole(b) == QMessageBox::RejectRole))
                b->click();
        poll->deleteLater();
    });
    poll->start(20);
}

} // namespace

void TestTrainPage::initTestCase() {
    QStandardPaths::setTestModeEnabled(true); // runs go to a test location, not the user's
    QCoreApplication::setOrganizationName(QStringLiteral("attnscope-tests"));
}

void TestTrainPage::trainPauseScrubSave() {
    ui::TrainPage page(QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/recipes"));
    page.resize(1200, 700);
    page.show();
    page.findChild<QComboBox*>(QStringLiteral("trainTask"))->setCurrentText(QStringLiteral("reverse"));
    page.findChild<QComboBox*>(QStringLiteral("trainSize"))->setCurrentIndex(1); // tiny
    page.findChild<QSpinBox*>(QStringLiteral("trainSteps"))->setValue(80);
    // Before a run the grid says where the run's frames will come, not to type a sentence.
    QVERIFY2(page.grid()->emptyMessage().startsWith(QStringLiteral("No run yet")),
             qPrintable(page.grid()->emptyMessage()));
    QSignalSpy changed(&page, &ui::TrainPage::trainingChanged);
    page.start();
    QVERIFY(page.training());
    QTRY_VERIFY_WITH_TIMEOUT(page.lastStep() >= 20, kLong);
    // Pause holds the run between two steps: once the step under way ends, the page hears that the loop
    // waits, after everything that step sent; from then on nothing arrives, however long the pause.
    QSignalSpy held(&page, &ui::TrainPage::held);
    page.togglePause();
    QVERIFY(page.paused());
    QVERIFY(held.wait(kLong));
    const auto heldAt = held.first().at(0).value<int64_t>();
    const auto logged = page.lastStep();
    const int frames = page.frames();
    QVERIFY2(logged <= heldAt && heldAt < 80, qPrintable(QStringLiteral("%1 %2").arg(logged).arg(heldAt)));
    // The status line says where the run waits, in the step the loop reported, not the last row's.
    const auto* status = page.findChild<QLabel*>(QStringLiteral("trainStatus"));
    QVERIFY(status);
    QCOMPARE(status->text(), QStringLiteral("Paused after step %1").arg(heldAt));
    const QByteArray shots = qgetenv("ATTNSCOPE_TEST_SHOTS");
    if (!shots.isEmpty())
        QVERIFY(page.grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/train-paused.png")));
    QSignalSpy progressed(&page, &ui::TrainPage::progressed);
    QTest::qWait(500); // a run that is not held makes several steps, rows and frames in this time
    QCOMPARE(progressed.count(), 0);
    QCOMPARE(page.lastStep(), logged);
    QCOMPARE(page.frames(), frames);
    QCOMPARE(held.count(), 1);
    page.togglePause();
    QVERIFY(!page.paused());
    QTRY_VERIFY_WITH_TIMEOUT(!page.training(), kLong);
    QCOMPARE(page.lastStep(), int64_t(80));
    QCOMPARE(changed.count(), 2); // started, finished
    // A row every 10 steps (the command line's cadence: one training loop), plus evaluations.
    QVERIFY2(page.lossPoints() >= 8, qPrintable(QString::number(page.lossPoints())));
    // Frames: the untrained model first, then every 2 steps (80 / 40), the last at step 80.
    QVERIFY2(page.frames() >= 30, qPrintable(QString::number(page.frames())));
    QCOMPARE(page.frameStep(0), int64_t(0));
    QCOMPARE(page.frameStep(page.frames() - 1), int64_t(80));
    QCOMPARE(page.shownFrame(), page.frames() - 1); // following the newest
    page.showFrame(0);
    QCOMPARE(page.shownFrame(), 0);
    QCOMPARE(page.grid()->layers(), 1);
    QCOMPARE(page.grid()->heads(), 2);
    // The run was saved as a model directory and a checkpoint.
    namespace fs = std::filesystem;
    const auto dir = page.runDirectory().toStdString();
    QVERIFY2(fs::exists(dir + "/model/model.safetensors"), dir.c_str());
    QVERIFY(fs::exists(dir + "/checkpoint/state.json"));
    QVERIFY(fs::exists(dir + "/log.csv"));
    fs::remove_all(dir);
}

void TestTrainPage::recurrentPresets_data() {
    QTest::addColumn<QString>("preset");
    QTest::addColumn<int>("kind");
    QTest::addColumn<int>("recipeSteps");
    QTest::newRow("GRU translator") << QStringLiteral("reverse-gru") << int(core::AttentionKind::Cross)
                                    << 2000;
    QTest::newRow("attention-pooling classifier")
        << QStringLiteral("spam") << int(core::AttentionKind::Pooling) << 1500;
}

void TestTrainPage::recurrentPresets() {
    // The seed's recurrent models train in the tab as the Transformer's tasks do: the preset sets its own
    // steps (the size box has nothing to choose), the curve grows, and the probe's attention is captured in
    // its kind (the GRU's one map over the source; the classifier's pooling row over the probe text).
    QFETCH(QString, preset);
    QFETCH(int, kind);
    QFETCH(int, recipeSteps);
    ui::TrainPage page(QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/recipes"));
    page.resize(1200, 700);
    page.show();
    auto* task = page.findChild<QComboBox*>(QStringLiteral("trainTask"));
    const int index = task->findData(preset);
    QVERIFY2(index >= 0, qPrintable(preset));
    task->setCurrentIndex(index);
    auto* steps = page.findChild<QSpinBox*>(QStringLiteral("trainSteps"));
    QCOMPARE(steps->value(), recipeSteps);
    QVERIFY(!page.findChild<QComboBox*>(QStringLiteral("trainSize"))->isEnabled());
    // ATTNSCOPE_TEST_PRESET_STEPS trains longer, for a picture of the preset learning.
    const int run = qEnvironmentVariableIntValue("ATTNSCOPE_TEST_PRESET_STEPS");
    steps->setValue(run > 0 ? run : 40);
    page.start();
    QVERIFY(page.training());
    QTRY_VERIFY_WITH_TIMEOUT(!page.training(), kLong);
    QCOMPARE(page.lastStep(), int64_t(steps->value()));
    QVERIFY2(page.lossPoints() >= 4, qPrintable(QString::number(page.lossPoints())));
    QVERIFY2(page.frames() >= 20, qPrintable(QString::number(page.frames())));
    QCOMPARE(int(page.grid()->shown().kind), kind);
    QCOMPARE(page.grid()->layers(), 1);
    QCOMPARE(page.grid()->heads(), 1);
    const auto& snap = *page.grid()->shown().snapshot;
    QVERIFY(snap.has(core::AttentionKind(kind)));
    const QByteArray shots = qgetenv("ATTNSCOPE_TEST_SHOTS");
    if (!shots.isEmpty())
        QVERIFY(
            page.grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/train-%1.png").arg(preset)));
    std::filesystem::remove_all(page.runDirectory().toStdString());
}

void TestTrainPage::saveMidRunEndsAndSaves() {
    // What closing the window with "Save" does while training runs.
    ui::TrainPage page(QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/recipes"));
    page.findChild<QComboBox*>(QStringLiteral("trainSize"))->setCurrentIndex(1);
    page.findChild<QSpinBox*>(QStringLiteral("trainSteps"))->setValue(100000);
    page.start();
    QTRY_VERIFY_WITH_TIMEOUT(page.lastStep() >= 10, kLong);
    QString error;
    QVERIFY2(page.save(&error), qPrintable(error));
    QVERIFY(!page.training());
    namespace fs = std::filesystem;
    const auto dir = page.runDirectory().toStdString();
    QVERIFY(fs::exists(dir + "/model/model.safetensors"));
    QVERIFY(fs::exists(dir + "/checkpoint/state.json"));
    QVERIFY(!fs::exists(dir + "/checkpoint.new"));
    fs::remove_all(dir);
}

void TestTrainPage::crashedRunContinues() {
    // A run checkpoints while it trains, so a window that dies mid-run leaves something to continue.
    namespace fs = std::filesystem;
    QString dir;
    {
        ui::TrainPage page(QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/recipes"));
        page.findChild<QComboBox*>(QStringLiteral("trainSize"))->setCurrentIndex(1);
        page.findChild<QSpinBox*>(QStringLiteral("trainSteps"))->setValue(400); // checkpoints every 20
        page.start();
        dir = page.runDirectory();
        QTRY_VERIFY_WITH_TIMEOUT(fs::exists(dir.toStdString() + "/checkpoint/state.json"), kLong);
        QVERIFY(page.training()); // written by the running loop, not by a stop
        QSignalSpy held(&page, &ui::TrainPage::held);
        page.togglePause();
        QVERIFY(held.wait(kLong)); // between two steps now: no checkpoint is being written
        // Kill the run the hard way: the checkpoint of a step that is not the last one stays behind.
        fs::copy(dir.toStdString() + "/checkpoint", dir.toStdString() + "/kept", fs::copy_options::recursive);
    }
    fs::remove_all(dir.toStdString() + "/checkpoint");
    fs::remove_all(dir.toStdString() + "/model");
    fs::rename(dir.toStdString() + "/kept", dir.toStdString() + "/checkpoint");
    // Opened again, the tab offers the run where it stopped, and its button continues it.
    ui::TrainPage again(QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/recipes"));
    QSignalSpy messages(&again, &ui::TrainPage::message);
    QCOMPARE(again.offeredRun(), dir);
    const auto offer = again.findChild<QLabel*>(QStringLiteral("trainOfferText"))->text();
    qInfo("offered: %s", qPrintable(offer));
    QVERIFY2(offer.contains(QStringLiteral("stopped at step ")) && offer.contains(QStringLiteral(" of 400")),
             qPrintable(offer));
    QVERIFY2(!again.runsFolder().contains(QStringLiteral("attnscope/attnscope")),
             qPrintable(again.runsFolder()));
    again.resize(1024, 600);
    again.show();
    QVERIFY(QTest::qWaitForWindowActive(&again));
    if (qEnvironmentVariableIsSet("ATTNSCOPE_TEST_SHOTS"))
        again.grab().save(qEnvironmentVariable("ATTNSCOPE_TEST_SHOTS") + QStringLiteral("/train-offer.png"));
    // Its button's mnemonic, as a keyboard user would: Alt+I ("Continue &It").
    auto* task = again.findChild<QComboBox*>(QStringLiteral("trainTask"));
    task->setFocus();
    QTest::keyClick(task, Qt::Key_I, Qt::AltModifier);
    QTRY_VERIFY(again.offeredRun().isEmpty()); // training (a mnemonic clicks 100 ms later): nothing to offer
    QVERIFY2(messages.isEmpty(), messages.isEmpty() ? "" : qPrintable(messages.first().first().toString()));
    QVERIFY(again.training());
    QTRY_VERIFY_WITH_TIMEOUT(!again.training(), kLong);
    QCOMPARE(again.lastStep(), int64_t(400));
    QVERIFY(again.offeredRun().isEmpty()); // finished: nothing to continue
    QVERIFY(fs::exists(dir.toStdString() + "/model/model.safetensors"));
    // The curve came back from the log and went on from the checkpoint: steps only rise.
    QVERIFY(again.lossPoints() >= 400 / 10);
    if (qEnvironmentVariableIsSet("ATTNSCOPE_TEST_SHOTS")) { // to look at the continued run
        again.resize(1200, 700);
        again.grab().save(qEnvironmentVariable("ATTNSCOPE_TEST_SHOTS") +
                          QStringLiteral("/train-continued.png"));
    }
    QVERIFY(again.frames() > 1);
    // A folder without a run is refused with a message, nothing started.
    again.continueRun(QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources"));
    QVERIFY(!again.training());
    QCOMPARE(messages.size(), 1);
    fs::remove_all(dir.toStdString());
}

void TestTrainPage::closingAsksWhileTraining() {
    ui::TrainPage page(QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/recipes"));
    QVERIFY(page.confirmClose(nullptr)); // nothing running: nothing to ask
    page.findChild<QComboBox*>(QStringLiteral("trainSize"))->setCurrentIndex(1);
    page.findChild<QSpinBox*>(QStringLiteral("trainSteps"))->setValue(100000);
    page.start();
    QTRY_VERIFY_WITH_TIMEOUT(page.lastStep() >= 10, kLong);
    // Cancel: the window stays, and so does the run.
    answerNextBox(QStringLiteral("cancel"));
    QVERIFY(!page.confirmClose(nullptr));
    QVERIFY(page.training());
    // Stop, Save and Close: the run is stopped and saved before the answer comes back.
    answerNextBox(QStringLiteral("stopSaveClose"));
    QVERIFY(page.confirmClose(nullptr));
    QVERIFY(!page.training());
    namespace fs = std::filesystem;
    const auto dir = page.runDirectory().toStdString();
    QVERIFY(fs::exists(dir + "/model/model.safetensors"));
    QVERIFY(fs::exists(dir + "/checkpoint/state.json"));
    fs::remove_all(dir);
}

void TestTrainPage::inductionPreset() {
    // The induction preset: its own steps, both sizes two attention-only layers, a decoder-only probe read as
    // it was trained ("<bos> segment <eos> segment", so the self-attention frames show the induction stripe
    // forming), and every log row carrying the best heads' scores.
    ui::TrainPage page(QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/recipes"));
    page.resize(1200, 700);
    page.show();
    auto* task = page.findChild<QComboBox*>(QStringLiteral("trainTask"));
    auto* size = page.findChild<QComboBox*>(QStringLiteral("trainSize"));
    QVERIFY(task->findData(QStringLiteral("induction")) >= 0);
    QString error;
    QVERIFY2(page.startPreset(QStringLiteral("induction"), true, 40, &error), qPrintable(error));
    QVERIFY(size->itemText(0).contains(QStringLiteral("2 layers")));
    QVERIFY2(size->itemText(1).contains(QStringLiteral("2 layers, d_model 32")) &&
                 size->itemText(1).contains(QStringLiteral("attention-only")),
             qPrintable(size->itemText(1)));
    QCOMPARE(page.runPreset(), QStringLiteral("induction"));
    QVERIFY(page.runTiny());
    QCOMPARE(page.runSteps(), int64_t(40));
    QVERIFY(!page.startPreset(QStringLiteral("induction"), true, 40, &error)); // one run at a time
    QVERIFY2(error.contains(QStringLiteral("stop it first")), qPrintable(error));
    QTRY_VERIFY_WITH_TIMEOUT(!page.training(), kLong);
    QCOMPARE(page.lastStep(), int64_t(40));
    QCOMPARE(int(page.grid()->shown().kind), int(core::AttentionKind::Decoder));
    QCOMPARE(page.grid()->layers(), 2);
    QCOMPARE(page.grid()->heads(), 2);
    const auto& snap = *page.grid()->shown().snapshot;
    QStringList tokens;
    for (const auto& t : snap.tgtTokens)
        tokens << QString::fromStdString(t.text);
    QCOMPARE(tokens.join(QLatin1Char(' ')), QStringLiteral("<bos> q W e R t Y u I <eos> q W e R t Y u I"));
    for (int64_t step = 10; step <= 40; step += 10) {
        const auto row = page.rowAt(step);
        QVERIFY(row && row->step == step);
        QVERIFY2(row->induction >= 0 && row->induction <= 1 && row->previous >= 0,
                 qPrintable(QString::number(row->induction)));
    }
    QVERIFY(!page.startPreset(QStringLiteral("no-such-task"), false, 0, &error));
    QVERIFY2(error.contains(QStringLiteral("no preset \"no-such-task\"")), qPrintable(error));
    // Chosen by hand, the preset takes its recipe's steps.
    task->setCurrentIndex(task->findData(QStringLiteral("reverse")));
    task->setCurrentIndex(task->findData(QStringLiteral("induction")));
    QCOMPARE(page.findChild<QSpinBox*>(QStringLiteral("trainSteps"))->value(), 3000);
    std::filesystem::remove_all(page.runDirectory().toStdString());
    // Asked for no steps, a run takes its recipe's own, whatever the box holds.
    page.findChild<QSpinBox*>(QStringLiteral("trainSteps"))->setValue(50);
    QVERIFY2(page.startPreset(QStringLiteral("induction"), true, 0, &error), qPrintable(error));
    QCOMPARE(page.runSteps(), int64_t(3000));
    page.stop();
    QTRY_VERIFY_WITH_TIMEOUT(!page.training(), kLong);
    std::filesystem::remove_all(page.runDirectory().toStdString());

    // A preset whose recipe is broken says what is wrong with it.
    QTemporaryDir recipes;
    QFile bad(recipes.filePath(QStringLiteral("copy.json")));
    QVERIFY(bad.open(QIODevice::WriteOnly));
    bad.write(R"({"name": "copy", "task": "copy", "steps": -5})");
    bad.close();
    ui::TrainPage broken(recipes.path());
    QVERIFY(!broken.startPreset(QStringLiteral("copy"), false, 100, &error));
    QVERIFY2(error.contains(QStringLiteral("steps")), qPrintable(error));
    QVERIFY(!broken.training());
}

QTEST_MAIN(TestTrainPage)
#include "test_trainpage.moc"
