// The Source field: what it says of the model's input, and keys pressed where a user is after typing. Ctrl+→,
// Ctrl+←, Ctrl+End and Ctrl+Home step, go back, run to the end and reset (the field used to take them as
// cursor moves), Ctrl+E exports, and Enter pressed right after the last keystroke, inside the typing
// debounce, decodes the text as typed.

#include "tests/support/TestModels.h"
#include "tests/support/WindowFixture.h"

#include "ui/attention/DecodePanel.h"
#include "ui/run/RunResult.h"
#include "ui/window/WindowDriver.h"

#include <QApplication>
#include <QTemporaryDir>
#include <QTimer>

class TestSourceKeys : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { isolateSettings(); }
    void decodingKeysFromTheField();
    void exportKeyFromTheField();
    void enterRightAfterTyping();
    void fieldSaysWhatTheModelTakes();
    void emptyFieldOffersAnExample();
};

namespace {

const QString kReverse = QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/reverse");

int stepOf(WindowFixture& f) {
    return f.controller->current() ? f.controller->current()->step : -1;
}

// Shortcuts go to the active window only; under a real X server without a window manager showing is not
// activating.
bool activate(WindowFixture& f) {
    f.window.activateWindow();
    return QTest::qWaitForWindowActive(&f.window);
}

void press(WindowFixture& f, Qt::Key key) {
    QTest::keyClick(f.edit, key, Qt::ControlModifier);
    QVERIFY(f.controller->waitUntilIdle());
}

} // namespace

void TestSourceKeys::decodingKeysFromTheField() {
    auto f = openWindow(kReverse, QStringLiteral("abcd"));
    QVERIFY(f);
    QVERIFY(activate(*f));
    f->edit->setFocus();
    QCOMPARE(f->edit->cursorPosition(), 4);
    press(*f, Qt::Key_Right);
    press(*f, Qt::Key_Right);
    QCOMPARE(stepOf(*f), 2);
    press(*f, Qt::Key_Left);
    QCOMPARE(stepOf(*f), 1);
    press(*f, Qt::Key_End);
    QVERIFY(f->controller->current()->finished);
    QVERIFY(stepOf(*f) >= 4);
    press(*f, Qt::Key_Home);
    QCOMPARE(stepOf(*f), 0);
    // The field kept its text and its cursor: the keys went to the window, not to the editing.
    QCOMPARE(f->edit->text(), QStringLiteral("abcd"));
    QCOMPARE(f->edit->cursorPosition(), 4);
    QVERIFY(f->edit->hasFocus());
}

void TestSourceKeys::exportKeyFromTheField() {
    auto f = openWindow(kReverse, QStringLiteral("abc"));
    QVERIFY(f);
    QVERIFY(activate(*f));
    QAction* picture = nullptr;
    for (auto* a : f->window.findChildren<QAction*>())
        if (a->shortcut() == QKeySequence(Qt::CTRL | Qt::Key_E))
            picture = a;
    QVERIFY(picture);
    bool triggered = false;
    connect(picture, &QAction::triggered, this, [&] { triggered = true; });
    // The export asks where to save in a modal dialog; close it once it is up.
    QTimer closer;
    connect(&closer, &QTimer::timeout, this, [] {
        if (auto* w = QApplication::activeModalWidget())
            w->close();
    });
    closer.start(50);
    f->edit->setFocus();
    QTest::keyClick(f->edit, Qt::Key_E, Qt::ControlModifier);
    QVERIFY(triggered);
    QCOMPARE(f->edit->text(), QStringLiteral("abc"));
}

void TestSourceKeys::enterRightAfterTyping() {
    auto f = openWindow(kReverse, QString());
    QVERIFY(f);
    QVERIFY(activate(*f));
    f->edit->setFocus();
    // Enter at once after the last key, well inside the 30 ms debounce.
    QTest::keyClicks(f->edit, QStringLiteral("abcde"));
    QTest::keyClick(f->edit, Qt::Key_Return);
    QVERIFY(f->controller->waitUntilIdle());
    const auto r = f->controller->current();
    QVERIFY(r);
    QCOMPARE(r->sourceText, QStringLiteral("abcde"));
    QVERIFY(r->finished);
    QVERIFY2(r->step >= 5, qPrintable(QString::number(r->step)));
    qInfo("Enter right after typing: decoded \"%s\" in %d steps", qPrintable(r->decodedText), r->step);
    // And Ctrl+→ likewise: a step on the text as typed, not on the one before it.
    f->edit->clear();
    QTest::keyClicks(f->edit, QStringLiteral("ghij"));
    QTest::keyClick(f->edit, Qt::Key_Right, Qt::ControlModifier);
    QVERIFY(f->controller->waitUntilIdle());
    QCOMPARE(f->controller->current()->sourceText, QStringLiteral("ghij"));
    QCOMPARE(stepOf(*f), 1);
}

void TestSourceKeys::fieldSaysWhatTheModelTakes() {
    // A task model takes only its alphabet: the field shows its example and, in the tooltip, what it does.
    auto f = openWindow(QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/addition"), QString());
    QVERIFY(f);
    QCOMPARE(f->edit->placeholderText(), QStringLiteral("e.g. 321+54 (Enter takes it)"));
    QVERIFY2(f->edit->toolTip().contains(QStringLiteral("Adds two numbers")), qPrintable(f->edit->toolTip()));
    QVERIFY(f->edit->toolTip().contains(QStringLiteral("Example input: 321+54")));
    // On a first start the window opens on that example (no text of a last run in the test's settings).
    f->window.restoreRemembered(QStringLiteral("fallback"));
    QTRY_VERIFY(f->window.driver()->arrived());
    QCOMPARE(f->edit->text(), QStringLiteral("321+54"));
}

void TestSourceKeys::emptyFieldOffersAnExample() {
    // A checkpoint without an example of its own (as one brought from Hugging Face): the empty field
    // offers a prompt for its kind, and Enter there takes it, analysed and not yet decoded.
    auto c = smallConfig(core::Architecture::DecoderOnly, core::PositionalEncoding::Sinusoidal);
    c.tgtVocabSize = 100; // the printable characters: the example's letters are in the vocabulary
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("prompted"));
    randomModel(c, 2)->save(path.toStdString());
    auto f = openWindow(path, QString());
    QVERIFY(f);
    qInfo("placeholder: %s", qPrintable(f->edit->placeholderText()));
    QCOMPARE(f->edit->placeholderText(), QStringLiteral("e.g. The capital of France is (Enter takes it)"));
    f->window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&f->window));
    f->edit->setFocus();
    QTest::keyClick(f->edit, Qt::Key_Return);
    QVERIFY(f->controller->waitUntilIdle());
    QCOMPARE(f->edit->text(), QStringLiteral("The capital of France is"));
    QVERIFY(f->controller->current());
    QCOMPARE(f->controller->current()->sourceText, QStringLiteral("The capital of France is"));
    QCOMPARE(f->controller->current()->step, 0);
    // A field with text is left alone: Enter decodes it.
    QTest::keyClick(f->edit, Qt::Key_Return);
    QVERIFY(f->controller->waitUntilIdle(60000));
    QCOMPARE(f->edit->text(), QStringLiteral("The capital of France is"));
    QVERIFY(f->controller->current()->step > 0);
}

QTEST_MAIN(TestSourceKeys)
#include "test_sourcekeys.moc"
