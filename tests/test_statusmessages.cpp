// Messages about the text on screen go with it: "the source has 42 tokens…" stayed in the status bar for its
// 8 s after the text was shortened to fit, and the note about unknown pieces after they were removed. A
// message about something else (the model just loaded) keeps its time.

#include "WindowFixture.h"

#include "ui/RunResult.h"

#include <QLabel>
#include <QStatusBar>

class TestStatusMessages : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { isolateSettings(); }
    void errorGoesWithTheText();
    void unknownPiecesGoWithThem();
};

namespace {

const QString kReverse = QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/reverse");

void retype(WindowFixture& f, const QString& text) {
    f.edit->selectAll();
    QTest::keyClicks(f.edit, text);
    QVERIFY(f.controller->waitUntilIdle());
    QCoreApplication::processEvents();
}

} // namespace

void TestStatusMessages::errorGoesWithTheText() {
    auto f = openWindow(kReverse, QString());
    QVERIFY(f);
    auto* bar = f->window.statusBar();
    auto* label = f->window.findChild<QLabel*>(QStringLiteral("messageLabel"));
    QVERIFY(label);
    retype(*f, QString(40, QLatin1Char('a'))); // 42 tokens with <bos> and <eos>; the model takes 32
    QVERIFY2(f->window.lastError().contains(QStringLiteral("42 tokens")), qPrintable(f->window.lastError()));
    QVERIFY(bar->currentMessage().contains(QStringLiteral("42 tokens")));
    QVERIFY(label->isVisible());
    retype(*f, QStringLiteral("abc"));
    QVERIFY(f->controller->current());
    QVERIFY(f->window.lastError().isEmpty());
    QVERIFY(!label->isVisible());
    QVERIFY2(!bar->currentMessage().contains(QStringLiteral("tokens")), qPrintable(bar->currentMessage()));
}

void TestStatusMessages::unknownPiecesGoWithThem() {
    auto f = openWindow(kReverse, QString());
    QVERIFY(f);
    auto* bar = f->window.statusBar();
    bar->showMessage(QStringLiteral("Loaded reverse"), 60000); // not about the text: it keeps its time
    retype(*f, QStringLiteral("abc"));
    QCOMPARE(bar->currentMessage(), QStringLiteral("Loaded reverse"));
    retype(*f, QStringLiteral("abZc")); // Z is not in the task's a–j
    QVERIFY2(bar->currentMessage().contains(QStringLiteral("not in the model's vocabulary")),
             qPrintable(bar->currentMessage()));
    retype(*f, QStringLiteral("abc"));
    QVERIFY2(bar->currentMessage().isEmpty(), qPrintable(bar->currentMessage()));
}

QTEST_MAIN(TestStatusMessages)
#include "test_statusmessages.moc"
