// What a restart keeps: the attention kind, layer and head shown, the sampling settings, the colour source,
// and the model folders opened before (File ▸ Open Recent). Two windows one after the other, on the same
// (test-only) settings; the second is driven to what the first showed, as the program's start does.

#include "tests/support/WindowFixture.h"

#include "ui/attention/DecodePanel.h"
#include "ui/base/AppSettings.h"
#include "ui/base/ViewState.h"
#include "ui/train/RunFolders.h"
#include "ui/window/ModelPicker.h"
#include "ui/window/WindowDriver.h"

#include <QAbstractItemView>
#include <QFile>
#include <QFileInfo>
#include <QMenu>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QSettings>

#include <chrono>
#include <filesystem>

class TestRemembered : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        isolateSettings();
        QSettings().clear();
    }
    void selectionSamplingAndRecentFolders();
    void modelListHasRecentFoldersAndTrainedRuns();
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
    // A new start, as the program makes one: the layout, the model, then the window driven to what it
    // showed, with the text the command line gives.
    WindowFixture g;
    g.window.restoreLayout();
    g.window.resize(1400, 900);
    g.window.show();
    QVERIFY(g.window.opener()->open(wide));
    g.edit = g.window.findChild<QLineEdit*>(QStringLiteral("sourceEdit"));
    g.window.restoreRemembered(QStringLiteral("fallback"), QStringLiteral("abc"));
    QTRY_VERIFY_WITH_TIMEOUT(g.window.driver()->arrived(), 30000);
    QCOMPARE(g.edit->text(), QStringLiteral("abc"));
    auto* panel = g.window.findChild<ui::DecodePanel*>();
    const auto restored = panel->sampling();
    QCOMPARE(restored.greedy, false);
    QCOMPARE(restored.temperature, 0.7);
    QCOMPARE(restored.topK, 5);
    QCOMPARE(restored.topP, 0.9);
    QCOMPARE(restored.seed, uint64_t(3));
    QCOMPARE(g.window.controller()->sampling().temperature, 0.7); // what the worker samples with
    QCOMPARE(g.window.viewState()->kind(), core::AttentionKind::Cross);
    QCOMPARE(g.window.viewState()->layer(), 2);
    QCOMPARE(g.window.viewState()->head(), 3);
    QVERIFY(g.window.viewState()->valueWeighted());
    QVERIFY(g.window.controller()->current()->valueWeighted); // and the worker computes it
    QVERIFY(!g.window.controller()->current()->snapshot->crossWeighted.empty());
    // A start with nothing to analyse (the field was empty at close) arrives too, though the worker answers
    // the settings alone sooner than the busy indicator would show.
    {
        QSettings().setValue(QStringLiteral("source/text"), QString());
        WindowFixture h;
        h.window.restoreRemembered(QStringLiteral("fallback"));
        QTRY_VERIFY_WITH_TIMEOUT(h.window.driver()->arrived(), 10000);
        QVERIFY(h.window.findChild<QLineEdit*>(QStringLiteral("sourceEdit"))->text().isEmpty());
        QCOMPARE(h.window.controller()->sampling().temperature, 0.7);
    }
    // File ▸ Open Recent lists the folder; choosing it opens it.
    auto* recent = g.window.findChild<QMenu*>(QStringLiteral("recentMenu"));
    QVERIFY(recent);
    Q_EMIT recent->aboutToShow();
    QVERIFY(!recent->actions().isEmpty());
    QCOMPARE(recent->actions().front()->toolTip(), QDir::toNativeSeparators(QDir(wide).absolutePath()));
    QVERIFY(recent->actions().front()->text().contains(QStringLiteral("wide")));
}

void TestRemembered::modelListHasRecentFoldersAndTrainedRuns() {
    // The Model list offers what File ▸ Open Recent lists, and the models runs of the Train tab left, named
    // by their run; runs go to …/attnscope/runs, the program's name once.
    QTemporaryDir dir;
    const auto wide = saveWideModel(dir.path());
    ui::AppSettings::addRecentModel(wide);
    const QString runs = ui::RunFolders::defaultFolder();
    qInfo("runs folder: %s", qPrintable(runs));
    QVERIFY2(runs.endsWith(QStringLiteral("/attnscope/runs")) &&
                 !runs.contains(QStringLiteral("attnscope/attnscope")),
             qPrintable(runs));
    const QString run = QDir(runs).filePath(QStringLiteral("reverse-20261203-101500"));
    QVERIFY(QDir().mkpath(run));
    const auto gone = qScopeGuard([run] { QDir(run).removeRecursively(); }); // never left for later windows
    QVERIFY(QDir().mkpath(run + QStringLiteral("/model")));
    for (const auto& name : QDir(wide).entryList(QDir::Files))
        QVERIFY(QFile::copy(wide + QLatin1Char('/') + name, run + QStringLiteral("/model/") + name));
    // Nine older runs: the list keeps the eight newest, the one just trained first.
    QStringList older;
    const auto olderGone = qScopeGuard([&older] {
        for (const auto& d : older)
            QDir(d).removeRecursively();
    });
    for (int i = 1; i <= 9; ++i) {
        older << QDir(runs).filePath(QStringLiteral("older-%1").arg(i));
        QVERIFY(QDir().mkpath(older.back() + QStringLiteral("/model")));
        QVERIFY(QFile::copy(wide + QStringLiteral("/config.json"),
                            older.back() + QStringLiteral("/model/config.json")));
        std::filesystem::last_write_time(older.back().toStdString(),
                                         std::filesystem::file_time_type::clock::now() -
                                             std::chrono::hours(i));
    }
    WindowFixture f;
    auto* picker = f.window.findChild<ui::ModelPicker*>(QStringLiteral("modelPicker"));
    QVERIFY(picker);
    QStringList items;
    for (int i = 0; i < picker->count(); ++i)
        items << picker->itemText(i);
    qInfo("Model list: %s", qPrintable(items.join(QStringLiteral(" | "))));
    const auto dirs = picker->modelDirectories();
    QVERIFY2(dirs.contains(QFileInfo(wide).canonicalFilePath()), qPrintable(dirs.join(QLatin1Char(' '))));
    const int trained = picker->findData(QFileInfo(run + QStringLiteral("/model")).canonicalFilePath());
    QVERIFY(trained >= 0);
    QCOMPARE(picker->itemText(trained), QStringLiteral("trained: reverse-20261203-101500"));
    QCOMPARE(items.filter(QRegularExpression(QStringLiteral("^trained: "))).size(), 8);
    QCOMPARE(items.indexOf(QRegularExpression(QStringLiteral("trained: .*"))), trained);
    QVERIFY(picker->findData(QFileInfo(run).canonicalFilePath()) < 0); // the run's model/ is the model
    // Chosen there with the keyboard, it opens: F4 drops the list down, the arrows walk it, Enter takes it.
    f.window.show();
    QVERIFY(QTest::qWaitForWindowActive(&f.window));
    picker->setFocus();
    QTest::keyClick(picker, Qt::Key_F4);
    QTRY_VERIFY(picker->view()->isVisible());
    const QByteArray shots = qgetenv("ATTNSCOPE_TEST_SHOTS");
    if (!shots.isEmpty())
        QVERIFY(picker->view()->window()->grab().save(QString::fromLocal8Bit(shots) +
                                                      QStringLiteral("/model-list.png")));
    for (int i = 0; i < picker->count() && picker->view()->currentIndex().row() != trained; ++i)
        QTest::keyClick(picker->view(),
                        picker->view()->currentIndex().row() < trained ? Qt::Key_Down : Qt::Key_Up);
    QCOMPARE(picker->view()->currentIndex().row(), trained);
    QTest::keyClick(picker->view(), Qt::Key_Return);
    QTRY_VERIFY(!picker->view()->isVisible());
    QCOMPARE(picker->currentIndex(), trained);
    QTRY_VERIFY_WITH_TIMEOUT(f.window.model() != nullptr, 30000);
    QCOMPARE(QFileInfo(f.window.opener()->directory()).canonicalFilePath(),
             QFileInfo(run + QStringLiteral("/model")).canonicalFilePath());
}

QTEST_MAIN(TestRemembered)
#include "test_remembered.moc"
