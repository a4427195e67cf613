// Every shipped lesson played in every way a teacher moves through it, offscreen in the real window: forwards
// with Page Down, backwards with Page Up, in a jumbled order by clicks in the step list, again from a decode
// run to its end, and after another lesson. Each step reached any of these ways must show what it shows
// reached forwards: the step's state (model, text, decode step, page, view), its caption with the same live
// numbers, and the panel's "Step i of n" over that caption, with nothing left waiting. A step that is not
// reached within its limit fails naming what the window was still waiting for.

#include "tests/support/LessonChecks.h"
#include "tests/support/SkipReport.h"
#include "tests/support/WindowFixture.h"

#include "ui/lesson/Lesson.h"
#include "ui/lesson/LessonPanel.h"
#include "ui/lesson/LessonPlayer.h"
#include "ui/run/AnalysisController.h"

#include <QListWidget>
#include <QtTest>

#include <vector>

namespace {

// A step whose caption quotes the newest frame of a training run reads another frame while the run goes
// on: its numbers are the run's, not the step's.
bool captionFollowsTraining(const ui::LessonStep& step) {
    return step.state.train.wanted() && step.state.frame == ui::WindowState::kLatestFrame;
}

QString describe(const ui::LessonPlayer* player) {
    return QStringLiteral("step %1 of %2").arg(player->index() + 1).arg(player->count());
}

} // namespace

class TestLessonOrder : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { isolateSettings(); }
    void everyWayMatchesForwards_data();
    void everyWayMatchesForwards();

private:
    // The step the player is at, against the same step played forwards; "" when they agree.
    QString check(WindowFixture& f, int index, const char* how);
    // The lesson just opened, its first three steps turned with Page Down, each checked.
    QString firstSteps(WindowFixture& f, const char* how);

    std::vector<QString> forwardCaptions_;
    QString failure_;
};

QString TestLessonOrder::check(WindowFixture& f, int index, const char* how) {
    auto* panel = f.window.lessonPanel();
    auto* player = panel->player();
    const QString where = QStringLiteral("%1, step %2: ").arg(QLatin1String(how)).arg(index + 1);
    if (!arrive(player, &failure_, 120000))
        return where + failure_;
    if (player->index() != index)
        return where + QStringLiteral("the player is at %1").arg(describe(player));
    const auto& step = player->lesson().steps[std::size_t(index)];
    if (const auto wrong = differs(f, step.state); !wrong.isEmpty())
        return where + wrong;
    const QString position = QStringLiteral("Step %1 of %2").arg(index + 1).arg(player->count());
    if (panel->positionText() != position)
        return where + QStringLiteral("the panel says \"%1\"").arg(panel->positionText());
    if (panel->statusText().contains(QStringLiteral("Getting the window there")))
        return where + QStringLiteral("the panel still says \"%1\"").arg(panel->statusText());
    // The caption on screen is this step's, with this step's numbers.
    if (panel->captionText() != player->captionHtml())
        return where +
               QStringLiteral("the panel shows another caption: %1").arg(panel->captionText().left(120));
    // The step list names the step with the numbers it shows now.
    const QString first = player->captionPlain().section(QLatin1Char('\n'), 0, 0);
    if (panel->stepLine(index) != first)
        return where + QStringLiteral("the step list reads \"%1\", the caption \"%2\"")
                           .arg(panel->stepLine(index), first);
    if (index < int(forwardCaptions_.size()) && !captionFollowsTraining(step) &&
        panel->captionText() != forwardCaptions_[std::size_t(index)])
        return where + QStringLiteral("the caption reads\n  %1\nforwards it read\n  %2")
                           .arg(panel->captionText(), forwardCaptions_[std::size_t(index)]);
    return {};
}

QString TestLessonOrder::firstSteps(WindowFixture& f, const char* how) {
    const int n = f.window.lessonPanel()->player()->count();
    for (int i = 0; i < std::min(n, 3); ++i) {
        if (i > 0)
            QTest::keyClick(f.edit, Qt::Key_PageDown);
        if (const auto wrong = check(f, i, how); !wrong.isEmpty())
            return wrong;
    }
    return {};
}

void TestLessonOrder::everyWayMatchesForwards_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("other"); // the lesson played before it
    const auto files = QDir(kLessons).entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name);
    for (int i = 0; i < files.size(); ++i)
        QTest::newRow(qPrintable(files[i]))
            << QDir(kLessons).filePath(files[i]) << QDir(kLessons).filePath(files[(i + 1) % files.size()]);
}

void TestLessonOrder::everyWayMatchesForwards() {
    QFETCH(QString, file);
    QFETCH(QString, other);
    auto f = openWindow(kReverse, QString());
    QVERIFY(f);
    f->window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&f->window));
    auto* panel = f->window.lessonPanel();
    auto* player = panel->player();
    failure_.clear();
    forwardCaptions_.clear();
    connect(player, &ui::LessonPlayer::failed, this, [this](int, const QString& m) { failure_ = m; });
    QString error;
    QVERIFY2(panel->openFile(file, &error), qPrintable(error));
    const int n = player->count();
    QVERIFY(n >= 2);
    // Before a step has been shown its line stops before its first number, rather than showing "…" for each.
    for (int i = 1; i < n; ++i) {
        const auto& caption = player->lesson().steps[std::size_t(i)].caption;
        const QString line = panel->stepLine(i);
        const int brace = caption.section(QLatin1Char('\n'), 0, 0).indexOf(QLatin1Char('{'));
        QVERIFY2(brace < 0 || (line.endsWith(QStringLiteral(" \u2026")) && line.count(QChar(0x2026)) <= 2),
                 qPrintable(QStringLiteral("step %1: %2").arg(i + 1).arg(line)));
    }
    f->edit->setFocus();
    // Forwards with Page Down from the Source field: the reference.
    for (int i = 0; i < n; ++i) {
        if (i > 0)
            QTest::keyClick(f->edit, Qt::Key_PageDown);
        const auto wrong = check(*f, i, "forwards");
        QVERIFY2(wrong.isEmpty(), qPrintable(wrong));
        forwardCaptions_.push_back(panel->captionText());
    }
    // Backwards with Page Up, the focus in the step list (which would take the key for itself).
    auto* list = panel->stepList();
    list->setFocus();
    for (int i = n - 2; i >= 0; --i) {
        QTest::keyClick(list, Qt::Key_PageUp);
        const auto wrong = check(*f, i, "backwards");
        QVERIFY2(wrong.isEmpty(), qPrintable(wrong));
    }
    // Jumbled, by clicks in the step list: the last, the second, the middle, the first, the one before last.
    for (const int i : {n - 1, 1, n / 2, 0, n - 2, n / 2 + 1 < n ? n / 2 + 1 : 0}) {
        QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, list->visualItemRect(list->item(i)).center());
        const auto wrong = check(*f, i, "jumbled");
        QVERIFY2(wrong.isEmpty(), qPrintable(wrong));
    }
    // From the end of a decode: Run to end on the step's text, then the lesson opened again.
    f->controller->runToEnd();
    QVERIFY(f->controller->waitUntilIdle(120000));
    QVERIFY2(panel->openFile(file, &error), qPrintable(error));
    const auto afterEnd = firstSteps(*f, "after Run to end");
    QVERIFY2(afterEnd.isEmpty(), qPrintable(afterEnd));
    // After another lesson, played to its last step.
    QVERIFY2(panel->openFile(other, &error), qPrintable(error));
    QVERIFY2(arrive(player, &failure_), qPrintable(failure_));
    player->go(player->count() - 1);
    QVERIFY2(arrive(player, &failure_), qPrintable(failure_));
    failure_.clear();
    QVERIFY2(panel->openFile(file, &error), qPrintable(error));
    const auto afterOther = firstSteps(*f, "after another lesson");
    QVERIFY2(afterOther.isEmpty(), qPrintable(afterOther));
    qInfo("%s: %d steps forwards, backwards, jumbled, after Run to end and after another lesson",
          qPrintable(QFileInfo(file).fileName()), n);
}

ATTNSCOPE_WIDGETS_MAIN(TestLessonOrder)

#include "test_lessonorder.moc"
