// A process killed (SIGKILL, no chance to clean up) at a random moment of a checkpoint save or of a model
// conversion leaves the previous checkpoint or model whole, or the new one: never a torn one. The saver is a
// child (tests/kill_saver.cpp) that saves in a loop and says on stdout when each save starts and ends, so
// every kill is known to have landed inside a save or between two.
//
// ATTNSCOPE_KILLS sets the kills per kind (default 100: 200 in all, about two minutes).

#include "core/model/Model.h"
#include "core/model/Safetensors.h"
#include "core/run/Analyze.h"
#include "core/train/TrainLog.h"
#include "core/train/Trainer.h"

#include <QtTest>

#include <filesystem>

namespace fs = std::filesystem;

class TestKillSave : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void checkpointSurvivesKills();
    void conversionSurvivesKills();

private:
    struct Kill {
        QString last;    // "ready", "saving" or "saved"
        long number = 0; // the step or save it names
    };
    // Starts the saver, waits until it is saving, kills it after a random pause, and says what it was doing.
    Kill killSaverOnce(const QStringList& args);
    QTemporaryDir tmp_;
    QRandomGenerator random_{20261124};
};

namespace {

int killsPerKind() {
    const int n = qEnvironmentVariableIntValue("ATTNSCOPE_KILLS");
    return n > 0 ? n : 100;
}

core::DType storedDtype(const std::string& modelDir) {
    const auto file = core::SafetensorsFile::open(modelDir + "/model.safetensors");
    return file.find("generator.proj.weight")->dtype;
}

} // namespace

TestKillSave::Kill TestKillSave::killSaverOnce(const QStringList& args) {
    QProcess p;
    p.start(QStringLiteral(KILL_SAVER_BINARY), args);
    if (!p.waitForStarted(30000))
        return {};
    QByteArray out;
    while (!out.contains("ready") && p.waitForReadyRead(60000))
        out += p.readAllStandardOutput();
    if (!out.contains("ready")) {
        qWarning("saver never got ready: %s", p.readAllStandardError().constData());
        return {};
    }
    // Aimed at a save: once the next one has begun, a pause of up to what the first save took, so
    // most kills fall inside a save, each at a different point of it, and some just after.
    const auto readyLine = out.mid(out.indexOf("ready"));
    const long saveMicros =
        QString::fromUtf8(readyLine.left(readyLine.indexOf('\n'))).section(QLatin1Char(' '), 2, 2).toLong();
    const int readyEnd = out.indexOf('\n', out.indexOf("ready"));
    while (out.indexOf("saving", readyEnd) < 0 && p.waitForReadyRead(60000))
        out += p.readAllStandardOutput();
    QThread::usleep(
        static_cast<unsigned long>(random_.bounded(static_cast<quint32>(std::max(1L, saveMicros)))));
    p.kill(); // SIGKILL
    p.waitForFinished(30000);
    out += p.readAllStandardOutput();
    const auto lines = QString::fromUtf8(out).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    const auto words = lines.last().split(QLatin1Char(' '));
    return {words.value(0), words.value(1).toLong()};
}

void TestKillSave::checkpointSurvivesKills() {
    const auto run = tmp_.filePath(QStringLiteral("run")).toStdString();
    const auto recipe = tmp_.filePath(QStringLiteral("tiny.json"));
    QFile f(recipe);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"name": "tiny", "task": "copy", "min_len": 1, "max_len": 4, "steps": 1000000,
        "model": {"d_model": 16, "heads": 2, "encoder_layers": 1, "decoder_layers": 1, "d_ff": 32},
        "batch_size": 8})");
    f.close();
    int inside = 0;
    const int kills = killsPerKind();
    long lastSaved = -1;
    for (int i = 0; i < kills; ++i) {
        const auto k = killSaverOnce({QStringLiteral("checkpoint"), QString::fromStdString(run), recipe});
        QVERIFY2(!k.last.isEmpty(), "the saver did not start");
        if (k.last == QStringLiteral("saved"))
            lastSaved = k.number;
        inside += k.last == QStringLiteral("saving");
        // What is on disk must read back whole: resume checks every file (state, weights, optimizer)
        // strictly.
        std::unique_ptr<core::Trainer> t;
        try {
            t = core::Trainer::resume(run);
        } catch (const std::exception& e) {
            QFAIL(qPrintable(QStringLiteral("kill %1 (%2 %3) left a checkpoint that does not load: %4")
                                 .arg(i)
                                 .arg(k.last)
                                 .arg(k.number)
                                 .arg(QString::fromUtf8(e.what()))));
        }
        const long step = static_cast<long>(t->stats().step);
        // Killed while saving step N: the checkpoint is N (the new one) or the one before it (the old one).
        if (k.last == QStringLiteral("saving"))
            QVERIFY2(step == k.number || step == k.number - 1,
                     qPrintable(QStringLiteral("killed saving %1, found %2").arg(k.number).arg(step)));
        else if (k.last == QStringLiteral("saved"))
            QCOMPARE(step, k.number);
        // The log was rewritten whole each time: every row parses, one per step up to the checkpoint.
        const auto rows = core::TrainLog::read(run + "/log.csv");
        QVERIFY(static_cast<long>(rows.size()) >= step);
    }
    qInfo("checkpoint: %d kills, %d inside a save (the rest between two), last complete save at step %ld",
          kills, inside, lastSaved);
    QVERIFY2(inside >= kills / 3, "too few kills landed inside a save to show anything");
    QVERIFY(!fs::exists(run + "/checkpoint.old"));
}

void TestKillSave::conversionSurvivesKills() {
    const std::string source = ATTNSCOPE_SOURCE_DIR "/resources/models/copy";
    const auto out = tmp_.filePath(QStringLiteral("converted")).toStdString();
    // The two versions a kill may leave: the same model in F16 and in F32, and what each computes.
    const auto model = core::Model::load(source, core::DeviceChoice::Cpu);
    std::map<core::DType, std::vector<float>> expected;
    for (const auto dtype : {core::DType::F16, core::DType::F32}) {
        const auto dir = tmp_.filePath(QString::fromLatin1(core::dtypeName(dtype))).toStdString();
        model->save(dir, dtype);
        expected[dtype] =
            core::analyze(*core::Model::load(dir, core::DeviceChoice::Cpu), {1, 5, 6, 7, 2}, {1, 5})
                .nextTokenLogProbs;
    }
    int inside = 0, loaded = 0;
    const int kills = killsPerKind();
    for (int i = 0; i < kills; ++i) {
        const auto k = killSaverOnce(
            {QStringLiteral("convert"), QString::fromStdString(source), QString::fromStdString(out)});
        QVERIFY2(!k.last.isEmpty(), "the saver did not start");
        inside += k.last == QStringLiteral("saving");
        if (!fs::exists(out)) {
            // Only possible before the first save ever completed; never after.
            QVERIFY2(i == 0 || !loaded, "a converted model that existed disappeared");
            continue;
        }
        std::shared_ptr<const core::Model> m;
        try {
            m = core::Model::load(out, core::DeviceChoice::Cpu);
        } catch (const std::exception& e) {
            QFAIL(qPrintable(QStringLiteral("kill %1 (%2 %3) left a model that does not load: %4")
                                 .arg(i)
                                 .arg(k.last)
                                 .arg(k.number)
                                 .arg(QString::fromUtf8(e.what()))));
        }
        ++loaded;
        // Whole means one version throughout: its weights in one dtype compute exactly that version's result.
        const auto dtype = storedDtype(out);
        QCOMPARE(core::analyze(*m, {1, 5, 6, 7, 2}, {1, 5}).nextTokenLogProbs, expected[dtype]);
        // Save n writes F16 when n is odd: a kill inside save n leaves save n's version or save n-1's.
        if (k.last == QStringLiteral("saved") && k.number > 0)
            QCOMPARE(dtype, k.number % 2 ? core::DType::F16 : core::DType::F32);
    }
    int strays = 0;
    for (const auto& e : fs::directory_iterator(tmp_.path().toStdString()))
        strays += e.path().filename().string().rfind("converted.new-", 0) == 0;
    qInfo("conversion: %d kills, %d inside a save, %d loads whole, %d temporary folders left beside it",
          kills, inside, loaded, strays);
    QVERIFY2(inside >= kills / 3, "too few kills landed inside a save to show anything");
    QVERIFY(strays <= 1); // a save clears what a killed one left; only the last kill's may remain
}

QTEST_GUILESS_MAIN(TestKillSave)
#include "test_killsave.moc"
