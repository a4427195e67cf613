// Loading model folders in the background: the newest request is the one that applies.

#include "tests/support/TestModels.h"

#include "ui/run/ModelLoader.h"

#include <QDir>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

class TestModelLoader : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        first_ = tmp_.filePath(QStringLiteral("first"));
        second_ = tmp_.filePath(QStringLiteral("second"));
        randomModel(smallConfig(core::Architecture::EncoderDecoder, core::PositionalEncoding::Sinusoidal), 1)
            ->save(first_.toStdString());
        randomModel(smallConfig(core::Architecture::DecoderOnly, core::PositionalEncoding::Learned), 2)
            ->save(second_.toStdString());
    }

    void twoLoadsInARowOnlyTheLastApplies() {
        ui::ModelLoader loader;
        QSignalSpy loaded(&loader, &ui::ModelLoader::loaded);
        QSignalSpy failed(&loader, &ui::ModelLoader::failed);
        QSignalSpy loading(&loader, &ui::ModelLoader::loadingChanged);
        loader.load(first_);
        loader.load(second_);
        QVERIFY(loader.loading());
        QTRY_VERIFY_WITH_TIMEOUT(!loader.loading(), 30000);
        QTest::qWait(100); // the first load's result, had it not been dropped, would be in by now
        QCOMPARE(loaded.count(), 1);
        QCOMPARE(failed.count(), 0);
        QCOMPARE(loaded.at(0).at(0).toString(), second_);
        const auto model = loaded.at(0).at(1).value<std::shared_ptr<const core::Model>>();
        QVERIFY(model);
        QCOMPARE(QString::fromStdString(model->directory()), QDir(second_).absolutePath());
        QCOMPARE(loading.count(), 2); // on once, off once: the second request did not start a new wait
    }

    void aFailureReplacedIsNotReported() {
        ui::ModelLoader loader;
        QSignalSpy loaded(&loader, &ui::ModelLoader::loaded);
        QSignalSpy failed(&loader, &ui::ModelLoader::failed);
        loader.load(QStringLiteral("/nonexistent-model-folder"));
        loader.load(first_);
        QTRY_VERIFY_WITH_TIMEOUT(!loader.loading(), 30000);
        QTest::qWait(100);
        QCOMPARE(failed.count(), 0);
        QCOMPARE(loaded.count(), 1);
        QCOMPARE(loaded.at(0).at(0).toString(), first_);
    }

    void loadNowForgetsTheBackgroundLoad() {
        ui::ModelLoader loader;
        QSignalSpy loaded(&loader, &ui::ModelLoader::loaded);
        loader.load(first_);
        QString error;
        const auto model = loader.loadNow(second_, &error);
        QVERIFY2(model, qPrintable(error));
        QVERIFY(!loader.loading());
        QTest::qWait(500);
        QCOMPARE(loaded.count(), 0);
        QVERIFY(!loader.loadNow(QStringLiteral("/nonexistent-model-folder"), &error));
        QVERIFY(error.contains(QStringLiteral("not a model directory")));
    }

private:
    QTemporaryDir tmp_;
    QString first_, second_;
};

QTEST_MAIN(TestModelLoader)
#include "test_modelloader.moc"
