// Which model a start opens (the one asked for, else the one used last, else the default), what a
// folder that does not load leaves behind, and where the built-in models are told apart.

#include "tests/support/WindowFixture.h"

#include "ui/base/AppSettings.h"
#include "ui/run/ModelOpener.h"

#include <QDir>
#include <QFile>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>

class TestModelOpener : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void explicitFolder();
    void explicitFolderBrokenHasNoFallback();
    void remembered();
    void rememberedButBroken();
    void rememberedButMissing();
    void builtinDefault();
    void screenshotIgnoresRemembered();
    void backgroundRefusalKeepsModel();
    void builtinIsOneRule();

private:
    static ui::ModelOpener::Startup startup(const QString& requested = QString()) {
        return {requested, kDemoModel, true};
    }
    QString directoryOf(const ui::ModelOpener& o) const { return QDir(o.directory()).canonicalPath(); }
    static QString canonical(const QString& dir) { return QDir(dir).canonicalPath(); }

    QTemporaryDir tmp_;
    QString wide_, broken_;
    const QString builtin_ = QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models");
};

void TestModelOpener::initTestCase() {
    isolateSettings();
    QVERIFY(tmp_.isValid());
    wide_ = saveWideModel(tmp_.path());
    broken_ = tmp_.filePath(QStringLiteral("broken"));
    QVERIFY(QDir().mkpath(broken_));
    QFile cfg(broken_ + QStringLiteral("/config.json"));
    QVERIFY(cfg.open(QIODevice::WriteOnly));
    cfg.write("{\"d_model\": 30, \"heads\": 4}");
}

void TestModelOpener::explicitFolder() {
    ui::AppSettings::setLastModel(kDemoModel);
    ui::ModelOpener opener(builtin_);
    QSignalSpy opened(&opener, &ui::ModelOpener::opened);
    QString note;
    QVERIFY(opener.openAtStartup(startup(wide_), &note));
    QCOMPARE(directoryOf(opener), canonical(wide_));
    QVERIFY(note.isEmpty());
    QCOMPARE(opened.count(), 1);
    QCOMPARE(ui::AppSettings::lastModel(), QDir(wide_).absolutePath()); // remembered for the next start
}

void TestModelOpener::explicitFolderBrokenHasNoFallback() {
    ui::ModelOpener opener(builtin_);
    QSignalSpy refused(&opener, &ui::ModelOpener::refused);
    QString note;
    QVERIFY(!opener.openAtStartup(startup(broken_), &note));
    QVERIFY(!opener.model()); // what was asked for, or nothing: never another model in its place
    QVERIFY(note.isEmpty());
    QCOMPARE(refused.count(), 1);
    QVERIFY(refused.at(0).at(1).toString().contains(QStringLiteral("not divisible")));
    QCOMPARE(refused.at(0).at(2).toBool(), false);
}

void TestModelOpener::remembered() {
    ui::AppSettings::setLastModel(wide_);
    ui::ModelOpener opener(builtin_);
    QString note;
    QVERIFY(opener.openAtStartup(startup(), &note));
    QCOMPARE(directoryOf(opener), canonical(wide_));
    QVERIFY(note.isEmpty());
}

void TestModelOpener::rememberedButBroken() {
    ui::AppSettings::setLastModel(broken_);
    ui::ModelOpener opener(builtin_);
    QSignalSpy refused(&opener, &ui::ModelOpener::refused);
    QString note;
    QVERIFY(opener.openAtStartup(startup(), &note));
    QVERIFY(opener.isOpen(kDemoModel)); // the default instead of an empty window
    QCOMPARE(refused.count(), 1);
    QVERIFY2(note.contains(QStringLiteral("not divisible")) && note.contains(QStringLiteral("instead")),
             qPrintable(note));
}

void TestModelOpener::rememberedButMissing() {
    ui::AppSettings::setLastModel(tmp_.filePath(QStringLiteral("deleted-since")));
    ui::ModelOpener opener(builtin_);
    QSignalSpy refused(&opener, &ui::ModelOpener::refused);
    QString note;
    QVERIFY(opener.openAtStartup(startup(), &note));
    QVERIFY(opener.isOpen(kDemoModel));
    QCOMPARE(refused.count(), 0); // a folder that is gone is not tried, so there is nothing to report
    QVERIFY(note.isEmpty());
}

void TestModelOpener::builtinDefault() {
    QSettings().clear(); // the first start
    ui::ModelOpener opener(builtin_);
    QCOMPARE(opener.dialogFolder(), builtin_); // nothing open yet: the dialog starts at the built-in ones
    QString note;
    QVERIFY(opener.openAtStartup(startup(), &note));
    QVERIFY(opener.isOpen(kDemoModel));
    QVERIFY(opener.isOpen(kDemoModel + QStringLiteral("/"))); // however the path is spelled
    QVERIFY(!opener.isOpen(wide_));
    QVERIFY(note.isEmpty());
    // Beside the open model, not inside it: the folders to choose from are its siblings.
    QCOMPARE(canonical(opener.dialogFolder()), canonical(QFileInfo(kDemoModel).absolutePath()));
}

void TestModelOpener::screenshotIgnoresRemembered() {
    ui::AppSettings::setLastModel(wide_);
    ui::ModelOpener opener(builtin_);
    QVERIFY(opener.openAtStartup({QString(), kDemoModel, false}));
    QVERIFY(opener.isOpen(kDemoModel));
}

void TestModelOpener::backgroundRefusalKeepsModel() {
    ui::ModelOpener opener(builtin_);
    QVERIFY(opener.open(kDemoModel));
    const auto before = opener.model();
    QSignalSpy refused(&opener, &ui::ModelOpener::refused);
    QSignalSpy loading(&opener, &ui::ModelOpener::loadingChanged);
    opener.openInBackground(broken_);
    QVERIFY(refused.wait(30000));
    QCOMPARE(refused.at(0).at(0).toString(), broken_);
    QCOMPARE(refused.at(0).at(2).toBool(), true);
    QCOMPARE(opener.model(), before);
    QVERIFY(!opener.loading());
    QCOMPARE(loading.count(), 2);
    QCOMPARE(ui::AppSettings::lastModel(), QDir(kDemoModel).absolutePath()); // a refusal is not remembered
}

void TestModelOpener::builtinIsOneRule() {
    ui::ModelOpener opener(builtin_);
    QVERIFY(opener.isBuiltin(kDemoModel));
    QVERIFY(opener.isBuiltin(kDemoModel + QStringLiteral("/")));
    QVERIFY(opener.isBuiltin(builtin_ + QStringLiteral("/../models/demo-random")));
    QVERIFY(!opener.isBuiltin(wide_));
    QVERIFY(!opener.isBuiltin(builtin_)); // the folder of the built-in models is not one of them
    QVERIFY(!ui::ModelOpener(QString()).isBuiltin(kDemoModel));
}

QTEST_MAIN(TestModelOpener)
#include "test_modelopener.moc"
