// Lessons in the real window, offscreen: every shipped lesson replays to its end with each step's state
// checked (model, decode step, page, kind, layer, head) and every number its captions quote read from the
// live model; Page Down and Page Up (and the arrow keys while presenting) turn the steps wherever the focus
// is, and Next brings the lesson's state back after exploring; a malformed lesson is refused and the open one
// kept; a step the model cannot reach says which and why; a recorded lesson, saved and read back, replays
// to the same states with the same captions.

#include "tests/support/LessonChecks.h"
#include "tests/support/SkipReport.h"
#include "tests/support/WindowFixture.h"

#include "ui/attention/AttentionPage.h"
#include "ui/base/ViewState.h"
#include "ui/inside/InsideView.h"
#include "ui/lesson/Lesson.h"
#include "ui/lesson/LessonFile.h"
#include "ui/lesson/LessonPanel.h"
#include "ui/lesson/LessonPlayer.h"
#include "ui/lesson/LessonRecorder.h"
#include "ui/lesson/LessonStepReader.h"
#include "ui/run/AnalysisController.h"
#include "ui/train/TrainPage.h"
#include "ui/views/AttentionGrid.h"
#include "ui/views/LessonSpotlight.h"

#include <QAction>
#include <QComboBox>
#include <QListWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>

class TestLessonPlayer : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { isolateSettings(); }
    void shippedLessonsReplay_data();
    void shippedLessonsReplay();
    void keysTurnTheStepsAndRestore();
    void refusesAndReports();
    void recordedLessonReplaysIdentically();
    void trainingStepsWaitForTheRun();
};

void TestLessonPlayer::shippedLessonsReplay_data() {
    QTest::addColumn<QString>("file");
    for (const auto& f : QDir(kLessons).entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name))
        QTest::newRow(qPrintable(f)) << QDir(kLessons).filePath(f);
}

void TestLessonPlayer::shippedLessonsReplay() {
    QFETCH(QString, file);
    auto f = openWindow(kReverse, QString());
    QVERIFY(f);
    auto* panel = f->window.lessonPanel();
    QString error;
    QVERIFY2(panel->openFile(file, &error), qPrintable(error));
    QVERIFY(panel->isVisible());
    auto* player = panel->player();
    QString failure;
    connect(player, &ui::LessonPlayer::failed, this, [&failure](int, const QString& m) { failure = m; });
    for (int i = 0; i < player->count(); ++i) {
        if (i > 0)
            player->next();
        QVERIFY2(arrive(player, &failure), qPrintable(QStringLiteral("step %1: %2").arg(i + 1).arg(failure)));
        QCOMPARE(player->index(), i);
        const auto& step = player->lesson().steps[std::size_t(i)];
        const auto wrong = differs(*f, step.state);
        QVERIFY2(wrong.isEmpty(), qPrintable(QStringLiteral("step %1: %2").arg(i + 1).arg(wrong)));
        // Every number the caption quotes is on screen, read from the model.
        QStringList missing;
        const auto caption = player->captionPlain(&missing);
        QVERIFY2(missing.isEmpty(), qPrintable(QStringLiteral("step %1 cannot fill {%2}: %3")
                                                   .arg(i + 1)
                                                   .arg(missing.join(QStringLiteral("}, {")), caption)));
        QCOMPARE(panel->positionText(), QStringLiteral("Step %1 of %2").arg(i + 1).arg(player->count()));
        QVERIFY(!panel->captionText().isEmpty());
        if (step.highlight.hasTile()) {
            auto* spot =
                f->window.attentionPage()->findChild<ui::AttentionGrid*>()->findChild<ui::LessonSpotlight*>();
            QCOMPARE(spot->framed(), f->window.attentionPage()->findChild<ui::AttentionGrid*>()->tileRect(
                                         step.highlight.tileLayer, step.highlight.tileHead));
        }
        qInfo("%d/%d %s L%d H%d step %d: %s", i + 1, player->count(), qPrintable(step.state.tab),
              step.state.layer, step.state.head, step.state.step,
              qPrintable(caption.left(160).replace(QLatin1Char('\n'), ' ')));
    }
}

void TestLessonPlayer::keysTurnTheStepsAndRestore() {
    auto f = openWindow(kReverse, QString());
    QVERIFY(f);
    f->window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&f->window));
    auto* panel = f->window.lessonPanel();
    QString error;
    QVERIFY2(panel->openFile(kLessons + QStringLiteral("/01-one-weight.json"), &error), qPrintable(error));
    auto* player = panel->player();
    QString failure;
    connect(player, &ui::LessonPlayer::failed, this, [&failure](int, const QString& m) { failure = m; });
    QVERIFY2(arrive(player, &failure), qPrintable(failure));
    // Page Down from the Source field, where a teacher who typed something is.
    f->edit->setFocus();
    QTest::keyClick(f->edit, Qt::Key_PageDown);
    QVERIFY2(arrive(player, &failure), qPrintable(failure));
    QCOMPARE(player->index(), 1);
    // Exploring: another head, a step further. Ctrl+Backspace brings the step back.
    f->window.viewState()->setSelection(0, 3);
    f->controller->step();
    QVERIFY(f->controller->waitUntilIdle());
    QVERIFY(!differs(*f, player->lesson().steps[1].state).isEmpty());
    QTest::keyClick(f->edit, Qt::Key_Backspace, Qt::ControlModifier);
    QVERIFY2(arrive(player, &failure), qPrintable(failure));
    QCOMPARE(differs(*f, player->lesson().steps[1].state), QString());
    // Explore again, then Next: the next step's whole state.
    f->window.viewState()->setSelection(2, 0);
    auto* grid = f->window.attentionPage()->findChild<ui::AttentionGrid*>();
    QTest::keyClick(grid, Qt::Key_PageDown);
    QVERIFY2(arrive(player, &failure), qPrintable(failure));
    QCOMPARE(player->index(), 2);
    QCOMPARE(differs(*f, player->lesson().steps[2].state), QString());
    QTest::keyClick(grid, Qt::Key_PageUp);
    QVERIFY2(arrive(player, &failure), qPrintable(failure));
    QCOMPARE(player->index(), 1);
    // Presenting: the arrow keys a clicker sends turn the steps too, and the panel stays on screen.
    f->window.findChild<QAction*>(QStringLiteral("presentationAction"))->setChecked(true);
    QVERIFY(panel->isVisible());
    grid->setFocus();
    QTest::keyClick(grid, Qt::Key_Right);
    QVERIFY2(arrive(player, &failure), qPrintable(failure));
    QCOMPARE(player->index(), 2);
    QTest::keyClick(grid, Qt::Key_Left);
    QVERIFY2(arrive(player, &failure), qPrintable(failure));
    QCOMPARE(player->index(), 1);
    // On the Model box, where a tab switch leaves the focus, they turn the steps too, and the model stays.
    auto* models = f->window.findChild<QComboBox*>(QStringLiteral("modelPicker"));
    QVERIFY(models);
    models->setFocus();
    const QString model = f->window.opener()->directory();
    QTest::keyClick(models, Qt::Key_Right);
    QVERIFY2(arrive(player, &failure), qPrintable(failure));
    QCOMPARE(player->index(), 2);
    QTest::keyClick(models, Qt::Key_Up);
    QVERIFY2(arrive(player, &failure), qPrintable(failure));
    QCOMPARE(player->index(), 1);
    QCOMPARE(f->window.opener()->directory(), model);
    // In the Source field the arrows move the cursor, not the lesson.
    f->edit->setFocus();
    QTest::keyClick(f->edit, Qt::Key_Right);
    QCOMPARE(player->index(), 1);
    // A click in the step list jumps.
    auto* list = panel->stepList();
    QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, list->visualItemRect(list->item(4)).center());
    QVERIFY2(arrive(player, &failure), qPrintable(failure));
    QCOMPARE(player->index(), 4);
    const QByteArray shots = qgetenv("ATTNSCOPE_TEST_SHOTS");
    if (!shots.isEmpty())
        QVERIFY(
            f->window.grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/lesson-presenting.png")));
}

void TestLessonPlayer::refusesAndReports() {
    auto f = openWindow(kReverse, QStringLiteral("abc"));
    QVERIFY(f);
    QTemporaryDir dir;
    auto* panel = f->window.lessonPanel();
    auto* player = panel->player();
    QString failure;
    connect(player, &ui::LessonPlayer::failed, this, [&failure](int, const QString& m) { failure = m; });
    // A step the model cannot show: the message names the step and the model's range.
    const QString unreachable = dir.filePath(QStringLiteral("unreachable.json"));
    QFile out(unreachable);
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(R"({"format": "attnscope-lesson", "version": 1, "title": "T", "steps": [
        {"caption": "a", "model": "reverse", "text": "abcd", "step": 2, "kind": "cross", "layer": 1},
        {"caption": "b", "layer": 7},
        {"caption": "c", "model": "no-such-model"}]})");
    out.close();
    QString error;
    QVERIFY2(panel->openFile(unreachable, &error), qPrintable(error));
    QVERIFY2(arrive(player, &failure), qPrintable(failure));
    QCOMPARE(f->controller->current()->step, 2);
    player->next();
    QVERIFY(QTest::qWaitFor([&] { return !failure.isEmpty(); }, 60000));
    QVERIFY2(failure.contains(QStringLiteral("step 2:")) && failure.contains(QStringLiteral("layers 0–1")),
             qPrintable(failure));
    QCOMPARE(panel->statusText(), failure);
    failure.clear();
    player->next();
    QVERIFY(QTest::qWaitFor([&] { return !failure.isEmpty(); }, 60000));
    QVERIFY2(failure.contains(QStringLiteral("step 3: no model \"no-such-model\"")), qPrintable(failure));
    // A malformed file: refused with its message, and the lesson open stays.
    const QString bad = dir.filePath(QStringLiteral("bad.json"));
    QFile badOut(bad);
    QVERIFY(badOut.open(QIODevice::WriteOnly));
    badOut.write(
        R"({"format": "attnscope-lesson", "version": 1, "title": "T", "steps": [{"caption": "x"}]})");
    badOut.close();
    QVERIFY(!panel->openFile(bad, &error));
    QVERIFY2(error.contains(QStringLiteral("step 1: the first step must name")), qPrintable(error));
    QCOMPARE(player->lesson().title, QStringLiteral("T"));
    QCOMPARE(player->count(), 3);
    // A model folder outside the lesson's folder that the user has not opened: refused, naming it. The same
    // folder beside the lesson opens.
    QTemporaryDir elsewhere;
    const QString copy = elsewhere.filePath(QStringLiteral("reverse"));
    QVERIFY(QDir().mkpath(copy));
    for (const auto& name : QDir(kReverse).entryList(QDir::Files))
        QVERIFY(QFile::copy(QDir(kReverse).filePath(name), QDir(copy).filePath(name)));
    const auto lessonNaming = [](const QString& path, const QString& model) {
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(QStringLiteral(R"({"format": "attnscope-lesson", "version": 1, "title": "T", "steps": [
            {"caption": "a", "model": "%1", "text": "abc", "step": 1}]})")
                       .arg(model)
                       .toUtf8());
    };
    const QString outside = dir.filePath(QStringLiteral("outside.json"));
    lessonNaming(outside, copy);
    failure.clear();
    QVERIFY2(panel->openFile(outside, &error), qPrintable(error));
    QVERIFY(QTest::qWaitFor([&] { return !failure.isEmpty(); }, 60000));
    QVERIFY2(failure.contains(QStringLiteral("lies outside the lesson's folder")), qPrintable(failure));
    QVERIFY(f->window.opener()->directory() != copy);
    const QString beside = elsewhere.filePath(QStringLiteral("beside.json"));
    lessonNaming(beside, QStringLiteral("./reverse"));
    failure.clear();
    QVERIFY2(panel->openFile(beside, &error), qPrintable(error));
    QVERIFY2(arrive(player, &failure), qPrintable(failure));
    QCOMPARE(QFileInfo(f->window.opener()->directory()).canonicalFilePath(),
             QFileInfo(copy).canonicalFilePath());
}

void TestLessonPlayer::recordedLessonReplaysIdentically() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("recorded.json"));
    std::vector<QString> captions;
    std::vector<ui::WindowState> states;
    {
        auto f = openWindow(kReverse, QStringLiteral("abcdef"));
        QVERIFY(f);
        auto* player = f->window.lessonPanel()->player();
        auto* recorder = f->window.lessonPanel()->recorder();
        auto* state = f->window.viewState();
        // Three states a teacher sets up by hand, each recorded with a caption quoting the live model.
        state->setKind(core::AttentionKind::Cross);
        state->setSelection(1, 2);
        QString error;
        QVERIFY2(recorder->record(QStringLiteral("The **start**: next is {next} ({next_p})."), &error),
                 qPrintable(error));
        for (int i = 0; i < 3; ++i) {
            f->controller->step();
            QVERIFY(f->controller->waitUntilIdle());
        }
        state->setMarkedToken(Qt::Horizontal, 2);
        state->setScaleMode(ui::ScaleMode::PerHead);
        QVERIFY2(recorder->record(QStringLiteral("Three steps in: {output}, then {next}."), &error),
                 qPrintable(error));
        f->window.showPage(ui::MainWindow::Page::Inside);
        f->window.insideView()->setStage(3);
        QVERIFY(QTest::qWaitFor([&] { return f->window.insideView()->shownInside() != nullptr; }, 30000));
        QVERIFY2(recorder->record(QStringLiteral("Inside, stage 3, d_k = {d_k}."), &error),
                 qPrintable(error));
        QVERIFY(!recorder->record(QStringLiteral("bad {placeholder}"), &error)); // refused, naming it
        QVERIFY2(error.contains(QStringLiteral("{placeholder}")), qPrintable(error));
        QCOMPARE(player->count(), 3);
        // Reordered and edited: the last step moves first, and back.
        recorder->moveStep(2, 0);
        QCOMPARE(player->lesson().steps[0].caption, QStringLiteral("Inside, stage 3, d_k = {d_k}."));
        recorder->moveStep(0, 2);
        recorder->setTitle(QStringLiteral("Recorded"));
        QVERIFY(recorder->modified());
        QVERIFY2(recorder->save(path, &error), qPrintable(error));
        QVERIFY(!recorder->modified());
        for (const auto& s : player->lesson().steps)
            states.push_back(s.state);
        // The captions as the recording window shows them, step by step.
        QString failure;
        connect(player, &ui::LessonPlayer::failed, this, [&failure](int, const QString& m) { failure = m; });
        for (int i = 0; i < player->count(); ++i) {
            player->go(i);
            QVERIFY2(arrive(player, &failure), qPrintable(failure));
            captions.push_back(player->captionPlain());
        }
    }
    const auto read = ui::LessonFile::read(path, nullptr);
    QVERIFY(read);
    QCOMPARE(read->title, QStringLiteral("Recorded"));
    QCOMPARE(int(read->steps.size()), 3);
    for (std::size_t i = 0; i < states.size(); ++i)
        QVERIFY(read->steps[i].state == states[i]);
    QCOMPARE(read->steps[1].state.step, 3);
    QCOMPARE(read->steps[2].state.tab, QStringLiteral("inside"));
    // A fresh window on another model replays it: the same states, the same captions.
    auto g = openWindow(QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/copy"), QString());
    QVERIFY(g);
    auto* panel = g->window.lessonPanel();
    QString error;
    QVERIFY2(panel->openFile(path, &error), qPrintable(error));
    auto* player = panel->player();
    QString failure;
    connect(player, &ui::LessonPlayer::failed, this, [&failure](int, const QString& m) { failure = m; });
    for (int i = 0; i < player->count(); ++i) {
        player->go(i);
        QVERIFY2(arrive(player, &failure), qPrintable(failure));
        QCOMPARE(differs(*g, states[std::size_t(i)]), QString());
        QCOMPARE(player->captionPlain(), captions[std::size_t(i)]);
        qInfo("replayed step %d: %s", i + 1, qPrintable(captions[std::size_t(i)]));
    }
}

void TestLessonPlayer::trainingStepsWaitForTheRun() {
    // A step that trains starts its run once; a step showing the frame of step N waits for the run to get
    // there; a step waiting for an induction head on a run that never forms one says so when the run ends;
    // and a recorded step on the Train tab keeps its run and frame.
    auto f = openWindow(kReverse, QStringLiteral("abc"));
    QVERIFY(f);
    QTemporaryDir dir;
    auto* panel = f->window.lessonPanel();
    auto* player = panel->player();
    auto* recorder = panel->recorder();
    auto* train = f->window.trainPage();
    QString failure;
    connect(player, &ui::LessonPlayer::failed, this, [&failure](int, const QString& m) { failure = m; });
    const QString path = dir.filePath(QStringLiteral("train.json"));
    QFile out(path);
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(R"({"format": "attnscope-lesson", "version": 1, "title": "T", "steps": [
        {"caption": "a", "model": "reverse", "text": "abc", "tab": "train",
         "train": {"preset": "copy", "steps": 60, "size": "tiny"}},
        {"caption": "b {frame_step} {frame_loss}", "frame": 30},
        {"caption": "c", "frame": "formed"}]})");
    out.close();
    QString error;
    QVERIFY2(panel->openFile(path, &error), qPrintable(error));
    QVERIFY2(arrive(player, &failure), qPrintable(failure));
    QCOMPARE(train->runPreset(), QStringLiteral("copy"));
    QCOMPARE(train->runSteps(), int64_t(60));
    const auto runDir = train->runDirectory();
    player->next();
    QVERIFY2(arrive(player, &failure), qPrintable(failure));
    QCOMPARE(train->runDirectory(), runDir); // the same run, not a second one
    QCOMPARE(train->frameStep(train->shownFrame()), int64_t(30));
    QStringList missing;
    QCOMPARE(player->captionPlain(&missing).left(5), QStringLiteral("b 30 "));
    QVERIFY2(missing.isEmpty(), qPrintable(missing.join(QLatin1Char(','))));
    player->next();
    QVERIFY(QTest::qWaitFor([&] { return !failure.isEmpty(); }, 180000));
    QVERIFY2(
        failure.contains(QStringLiteral("step 3: the run ended at step 60 before an induction head formed")),
        qPrintable(failure));
    QVERIFY(!train->training());
    // Recorded on the Train tab, a frame scrubbed back to: the run and the frame are the step's.
    failure.clear();
    player->go(1);
    QVERIFY2(arrive(player, &failure), qPrintable(failure));
    train->showFrame(train->frameAtOrBefore(20));
    QVERIFY(recorder->record(QStringLiteral("recorded"), &error));
    const auto& recorded = player->lesson().steps[2].state;
    QCOMPARE(recorded.tab, QStringLiteral("train"));
    QCOMPARE(recorded.frame, 20);
    QCOMPARE(recorded.train.preset, QStringLiteral("copy"));
    QCOMPARE(recorded.train.steps, 60);
    QVERIFY(recorded.train.tiny);
    // Recorded on another page, a step is not about the run trained before it.
    f->window.showPage(ui::Page::Attention);
    QVERIFY(recorder->record(QStringLiteral("elsewhere"), &error));
    const auto& elsewhere = player->lesson().steps[3].state;
    QCOMPARE(elsewhere.tab, QStringLiteral("attention"));
    QVERIFY(!elsewhere.train.wanted());
    std::filesystem::remove_all(runDir.toStdString());
}

ATTNSCOPE_WIDGETS_MAIN(TestLessonPlayer)
#include "test_lessonplayer.moc"
