// Messages about the text on screen go with it, and never widen the window: "the source has 42 tokens…"
// stayed in the status bar for its 8 s after the text was shortened to fit, and the note about unknown pieces
// after they were removed. A message about something else (the model just loaded) keeps its time.

#include "tests/support/WindowFixture.h"

#include "core/run/AttentionSnapshot.h"
#include "ui/run/RunResult.h"

#include <QLabel>
#include <QStatusBar>

class TestStatusMessages : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { isolateSettings(); }
    void errorGoesWithTheText();
    void unknownPiecesGoWithThem();
    void longOutputKeepsTheWindowsWidth();
    void timingsGoWithTheText();
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
    // A text past max_len is read up to it now (test_longtext); the note about the cut is the banner's, and
    // it goes when the text is shortened, with no error left behind.
    auto f = openWindow(kReverse, QString());
    QVERIFY(f);
    auto* bar = f->window.statusBar();
    auto* label = f->window.findChild<QLabel*>(QStringLiteral("messageLabel"));
    auto* banner = f->window.findChild<QWidget*>(QStringLiteral("lengthBanner"));
    QVERIFY(label && banner);
    retype(*f, QString(40, QLatin1Char('a'))); // 42 tokens with <bos> and <eos>; the model takes 32
    QVERIFY(banner->isVisible());
    retype(*f, QStringLiteral("abc"));
    QVERIFY(f->controller->current());
    QVERIFY(f->window.lastError().isEmpty());
    QVERIFY(!label->isVisible());
    QVERIFY(!banner->isVisible());
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

void TestStatusMessages::timingsGoWithTheText() {
    // The status bar's timings belong to the result on screen: they go when Source is cleared, and a model
    // that decodes nothing (the spam classifier) shows its one pass, not a "decode" it never did.
    auto f = openWindow(kReverse, QString());
    QVERIFY(f);
    auto* timing = f->window.findChild<QLabel*>(QStringLiteral("timingLabel"));
    QVERIFY(timing);
    retype(*f, QStringLiteral("abc"));
    QVERIFY2(timing->text().startsWith(QStringLiteral("encode ")) &&
                 timing->text().contains(QStringLiteral(" · decode ")),
             qPrintable(timing->text()));
    f->edit->selectAll();
    QTest::keyClick(f->edit, Qt::Key_Backspace);
    QVERIFY(f->controller->waitUntilIdle());
    QCoreApplication::processEvents();
    QVERIFY(!f->controller->current());
    QVERIFY2(timing->text().isEmpty(), qPrintable(timing->text()));
    QVERIFY(f->window.opener()->open(QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/spam")));
    retype(*f, QStringLiteral("Win a free prize now"));
    QVERIFY(f->controller->current() && !f->controller->current()->snapshot->decodes);
    QVERIFY2(timing->text().startsWith(QStringLiteral("pass ")) &&
                 !timing->text().contains(QStringLiteral("decode")),
             qPrintable(timing->text()));
    qInfo("spam classifier: %s", qPrintable(timing->text()));
}

void TestStatusMessages::longOutputKeepsTheWindowsWidth() {
    // demo-random decodes 255 characters without a space from this text; the line that shows the decoded
    // text widened the window from 1,500 to 1,811 px, and it stayed that wide after Reset.
    auto f = openWindow(kDemoModel, QString());
    QVERIFY(f);
    f->window.resize(1500, 900);
    QCoreApplication::processEvents();
    const int width = f->window.width();
    retype(*f, QStringLiteral("The dog sleeps."));
    f->controller->runToEnd();
    QVERIFY(f->controller->waitUntilIdle(120000));
    QCoreApplication::processEvents();
    const auto r = f->controller->current();
    QVERIFY(r && r->finished);
    qInfo("decoded %d characters; window %d px wide, its minimum %d px", int(r->decodedText.size()),
          f->window.width(), f->window.minimumSizeHint().width());
    QVERIFY(r->decodedText.size() > 200);
    QCOMPARE(f->window.width(), width);
    QVERIFY(f->window.minimumSizeHint().width() <= width);
    f->controller->reset();
    QVERIFY(f->controller->waitUntilIdle());
    QCoreApplication::processEvents();
    QCOMPARE(f->window.width(), width);
}

QTEST_MAIN(TestStatusMessages)
#include "test_statusmessages.moc"
