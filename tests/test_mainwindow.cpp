// The minimal window: opens the built-in model, analyses typed text, reports a bad folder without crashing.

#include "ui/MainWindow.h"

#include <QLineEdit>
#include <QPlainTextEdit>
#include <QStatusBar>
#include <QtTest>

class TestMainWindow : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void typesAndShows();
    void badFolder();
};

void TestMainWindow::typesAndShows() {
    ui::MainWindow w;
    QVERIFY(w.openModel(QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/demo-random")));
    w.show();
    auto* edit = w.findChild<QLineEdit*>();
    auto* out = w.findChild<QPlainTextEdit*>();
    QVERIFY(edit && out);
    QTest::keyClicks(edit, QStringLiteral("hi"));
    edit->insert(QStringLiteral("\u00e9")); // not in the vocabulary: shown marked, not dropped
    const auto text = out->toPlainText();
    QVERIFY2(text.contains(QStringLiteral("<bos> · h · i · ⟨?é⟩ · <eos>")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("next-token candidates")), qPrintable(text));
    const auto shot = qEnvironmentVariable("ATTNSCOPE_SCREENSHOT");
    if (!shot.isEmpty())
        QVERIFY(w.grab().save(shot));
}

void TestMainWindow::badFolder() {
    ui::MainWindow w;
    QVERIFY(!w.openModel(QStringLiteral("/nonexistent-model-folder")));
    QVERIFY(w.statusBar()->currentMessage().contains(QStringLiteral("not a model directory")));
}

QTEST_MAIN(TestMainWindow)
#include "test_mainwindow.moc"
