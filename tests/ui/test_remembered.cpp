// What a restart keeps: the attention kind, layer and head shown, the sampling settings, and the model
// folders opened before (File ▸ Open Recent). Two windows one after the other, on the same (test-only)
// settings.

#include "tests/support/WindowFixture.h"

#include "ui/attention/DecodePanel.h"
#include "ui/base/ViewState.h"

#include <QMenu>
#include <QSettings>

class TestRemembered : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        isolateSettings();
        QSettings().clear();
    }
    void selectionSamplingAndRecentFolders();
};

void TestRemembered::selectionSamplingAndRecentFolders() {
    QTemporaryDir dir;
    const auto wide = saveWideModel(dir.path()); // 3 layers × 5 heads: a selection the defaults cannot be
    const core::SamplingSettings sampling{false, 0.7, 5, 0.9, 3};
    {
        auto f = openWindow(wide, QStringLiteral("abc"));
        QVERIFY(f);
        f->window.viewState()->setKind(core::AttentionKind::Cross);
        f->window.viewState()->setSelection(2, 3);
        f->window.findChild<ui::DecodePanel*>()->setSampling(sampling);
        f->window.viewState()->setValueWeighted(true); // the colour source, too
        QVERIFY(f->controller->waitUntilIdle());
    }
    // A new start: settings restored first, as the program does, then the model and a text.
    WindowFixture g;
    g.window.restoreSettings();
    g.window.resize(1400, 900);
    g.window.show();
    auto* panel = g.window.findChild<ui::DecodePanel*>();
    const auto restored = panel->sampling();
    QCOMPARE(restored.greedy, false);
    QCOMPARE(restored.temperature, 0.7);
    QCOMPARE(restored.topK, 5);
    QCOMPARE(restored.topP, 0.9);
    QCOMPARE(restored.seed, uint64_t(3));
    QVERIFY(g.window.opener()->open(wide));
    g.edit = g.window.findChild<QLineEdit*>(QStringLiteral("sourceEdit"));
    QTest::keyClicks(g.edit, QStringLiteral("abc"));
    QVERIFY(g.window.controller()->waitUntilIdle());
    QCoreApplication::processEvents();
    QCOMPARE(g.window.viewState()->kind(), core::AttentionKind::Cross);
    QCOMPARE(g.window.viewState()->layer(), 2);
    QCOMPARE(g.window.viewState()->head(), 3);
    QVERIFY(g.window.viewState()->valueWeighted());
    QVERIFY(g.window.controller()->current()->valueWeighted); // and the worker computes it
    QVERIFY(!g.window.controller()->current()->snapshot->crossWeighted.empty());
    // File ▸ Open Recent lists the folder; choosing it opens it.
    auto* recent = g.window.findChild<QMenu*>(QStringLiteral("recentMenu"));
    QVERIFY(recent);
    Q_EMIT recent->aboutToShow();
    QVERIFY(!recent->actions().isEmpty());
    QCOMPARE(recent->actions().front()->toolTip(), QDir::toNativeSeparators(QDir(wide).absolutePath()));
    QVERIFY(recent->actions().front()->text().contains(QStringLiteral("wide")));
}

QTEST_MAIN(TestRemembered)
#include "test_remembered.moc"
