// The presentation mode (F11 or View ▸ Presentation): full screen, larger fonts, the chrome out of sight,
// the step controls and every shortcut kept; F11 or Escape gives the window back as it was.

#include "WindowFixture.h"

#include "ui/AttentionPage.h"
#include "ui/RunResult.h"
#include "ui/ViewState.h"

#include <QAction>
#include <QMenuBar>
#include <QStatusBar>
#include <QTabBar>

class TestPresentation : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { isolateSettings(); }
    void enterUseAndLeave();
    void everyShortcutIsItsOwn();
};

void TestPresentation::enterUseAndLeave() {
    auto f = openWindow(QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/en-es"),
                        QStringLiteral("The old man walked to the small white house."));
    QVERIFY(f);
    auto& w = f->window;
    w.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    auto* tabBar = w.findChild<QTabBar*>();
    auto* controls = w.findChild<QWidget*>(QStringLiteral("attentionControls"));
    QVERIFY(tabBar && controls);
    const double fontBefore = w.font().pointSizeF();
    // From the Source field, where a user's focus is after typing.
    f->edit->setFocus();
    QTest::keyClick(f->edit, Qt::Key_F11);
    QVERIFY(w.windowState() & Qt::WindowFullScreen);
    QCOMPARE(w.font().pointSizeF(), fontBefore * 1.6);
    QVERIFY(!tabBar->isVisible() && !controls->isVisible() && !w.statusBar()->isVisible());
    QCOMPARE(w.menuBar()->height(), 0);
    QVERIFY(w.findChild<QAction*>(QStringLiteral("presentationAction"))->isChecked());
    // The step controls and the shortcuts of the collapsed menus still work.
    QVERIFY(w.findChild<QWidget*>(QStringLiteral("decodeStatus"))->isVisible());
    QTest::keyClick(f->edit, Qt::Key_Right, Qt::ControlModifier);
    QVERIFY(f->controller->waitUntilIdle());
    QCOMPARE(f->controller->current()->step, 1);
    QTest::keyClick(f->edit, Qt::Key_3, Qt::ControlModifier);
    QCOMPARE(w.viewState()->kind(), core::AttentionKind::Cross);
    const QByteArray shots = qgetenv("ATTNSCOPE_TEST_SHOTS");
    if (!shots.isEmpty()) {
        w.resize(1600, 900); // a projector's size; offscreen has no screen to fill
        QTest::qWait(100);
        QVERIFY(w.grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/presentation.png")));
    }
    // Escape leaves, and everything comes back.
    QTest::keyClick(f->edit, Qt::Key_Escape);
    QVERIFY(!(w.windowState() & Qt::WindowFullScreen));
    QCOMPARE(w.font().pointSizeF(), fontBefore);
    QVERIFY(tabBar->isVisible() && controls->isVisible() && w.statusBar()->isVisible());
    QVERIFY(w.menuBar()->height() > 0);
    // F11 toggles it as well.
    QTest::keyClick(f->edit, Qt::Key_F11);
    QVERIFY(w.windowState() & Qt::WindowFullScreen);
    QTest::keyClick(f->edit, Qt::Key_F11);
    QVERIFY(!(w.windowState() & Qt::WindowFullScreen));
}

void TestPresentation::everyShortcutIsItsOwn() {
    // Two actions on one key make Qt run neither (Export Figure once shared Ctrl+Shift+E).
    auto f = openWindow(kDemoModel, QString());
    QVERIFY(f);
    QHash<QString, QString> owner;
    int keys = 0;
    for (auto* a : f->window.findChildren<QAction*>())
        for (const auto& key : a->shortcuts()) {
            const QString k = key.toString();
            QVERIFY2(!owner.contains(k) || owner[k] == a->text(),
                     qPrintable(QStringLiteral("%1: %2 and %3").arg(k, owner[k], a->text())));
            owner[k] = a->text();
            ++keys;
        }
    qInfo("%d shortcuts, each on one action", keys);
    QVERIFY(keys > 20);
}

QTEST_MAIN(TestPresentation)
#include "test_presentation.moc"
