// The attnscope executable's training commands: train (fresh, resumed, refused, interrupted by SIGINT)
// and a translation run followed by eval and convert. The other commands are in test_cli.cpp.

#include "tests/support/CliRunner.h"

#include <QDir>
#include <QtTest>

#include <csignal>
#include <sys/types.h>

#include <nlohmann/json.hpp>

using nlohmann::json;

class TestCliTrain : public QObject, protected CliRunner {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void train();
    void trainInterrupted();
    void translationTrainAndEval();

private:
    QString lm_;
};

void TestCliTrain::initTestCase() {
    QVERIFY(tmp_.isValid());
    auto write = [&](const QString& name, const QByteArray& text) {
        QFile f(tmp_.filePath(name));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(text);
    };
    write(QStringLiteral("lm.json"), lmConfigJson);
    write(QStringLiteral("tiny.json"), tinyRecipeJson());
    write(QStringLiteral("tiny-seed2.json"), tinyRecipeJson(R"(, "seed": 2)"));
    // eval must refuse a decoder-only model by name.
    lm_ = tmp_.filePath(QStringLiteral("lm"));
    QCOMPARE(run({QStringLiteral("init"), QStringLiteral("--config"),
                  tmp_.filePath(QStringLiteral("lm.json")), QStringLiteral("--out"), lm_}),
             0);
}

namespace {

// The steps of log.csv's rows, checking the header and that every row has its eight columns.
QList<qint64> loggedSteps(const QString& dir) {
    QFile f(dir + QStringLiteral("/log.csv"));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    const auto lines = QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    if (lines.isEmpty() ||
        lines.front() !=
            QStringLiteral("step,loss,lr,tokens_per_s,elapsed_s,accuracy,induction,previous_token"))
        return {};
    QList<qint64> steps;
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const auto cells = lines[i].split(QLatin1Char(','));
        if (cells.size() != 8)
            return {};
        steps.push_back(cells[0].toLongLong());
    }
    return steps;
}

bool increasing(const QList<qint64>& v) {
    for (qsizetype i = 1; i < v.size(); ++i)
        if (v[i] <= v[i - 1])
            return false;
    return !v.isEmpty();
}

qint64 checkpointStep(const QString& dir) {
    QFile f(dir + QStringLiteral("/checkpoint/state.json"));
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    return json::parse(f.readAll().toStdString()).at("step").get<qint64>();
}

} // namespace

void TestCliTrain::train() {
    const auto dir = tmp_.filePath(QStringLiteral("run"));
    QByteArray out, err;
    QCOMPARE(
        run({QStringLiteral("train"), QStringLiteral("--recipe"), tinyRecipe(), QStringLiteral("--out"), dir},
            &out, &err),
        0);
    QVERIFY2(out.contains("accuracy") && out.contains("on 20 fresh examples"), out.constData());
    QVERIFY2(out.contains(QStringLiteral("%1/model").arg(dir).toUtf8()), out.constData());
    QVERIFY2(err.contains("step 30/30"), err.constData()); // not a terminal: whole lines, no \r
    QVERIFY(!err.contains('\r'));
    QVERIFY(QFileInfo::exists(dir + QStringLiteral("/model/config.json")));
    QVERIFY(QFileInfo::exists(dir + QStringLiteral("/model/model.safetensors")));
    auto steps = loggedSteps(dir);
    QVERIFY(increasing(steps));
    QCOMPARE(steps.back(), qint64(30));
    QCOMPARE(checkpointStep(dir), qint64(30));
    // --help names every file the run wrote.
    QByteArray help;
    QCOMPARE(run({QStringLiteral("train"), QStringLiteral("-h")}, &help), 0);
    QStringList named;
    for (const auto& sub : {QString(), QStringLiteral("/checkpoint")})
        for (const auto& name : QDir(dir + sub).entryList(QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot)) {
            // The vocabulary's file is named by the task (vocab.json, or a SentencePiece .model).
            if (sub == QLatin1String("/checkpoint") && name.startsWith(QLatin1String("vocab")))
                continue;
            QVERIFY2(help.contains(name.toUtf8()),
                     qPrintable(name + QStringLiteral(" is not in train --help")));
            named << sub.mid(1) + (sub.isEmpty() ? QString() : QStringLiteral("/")) + name;
        }
    qInfo("train --help names each of: %s", qPrintable(named.join(QStringLiteral(", "))));

    // A second fresh run must not overwrite the first; another recipe must not continue it.
    QCOMPARE(
        run({QStringLiteral("train"), QStringLiteral("--recipe"), tinyRecipe(), QStringLiteral("--out"), dir},
            nullptr, &err),
        2);
    QVERIFY2(err.contains("already holds a run"), err.constData());
    QCOMPARE(run({QStringLiteral("train"), QStringLiteral("--resume"), QStringLiteral("--out"), dir,
                  QStringLiteral("--recipe"), tmp_.filePath(QStringLiteral("tiny-seed2.json"))},
                 nullptr, &err),
             2);
    QVERIFY2(err.contains("differs") && err.contains("seed"), err.constData());

    QCOMPARE(run({QStringLiteral("train"), QStringLiteral("--resume"), QStringLiteral("--out"), dir,
                  QStringLiteral("--steps"), QStringLiteral("40")},
                 &out, &err),
             0);
    QVERIFY2(err.contains("step 40/40"), err.constData());
    steps = loggedSteps(dir);
    QVERIFY(increasing(steps));
    QCOMPARE(steps.back(), qint64(40));
    QCOMPARE(checkpointStep(dir), qint64(40));
}

void TestCliTrain::trainInterrupted() {
    const auto dir = tmp_.filePath(QStringLiteral("stopped"));
    QProcess p;
    p.start(QStringLiteral(ATTNSCOPE_BINARY),
            {QStringLiteral("train"), QStringLiteral("--recipe"), tinyRecipe(), QStringLiteral("--out"), dir,
             QStringLiteral("--steps"), QStringLiteral("100000")});
    QVERIFY(p.waitForStarted());
    // The first checkpoint shows the loop is running (and the handler installed), whatever the load.
    QTRY_VERIFY_WITH_TIMEOUT(QFileInfo::exists(dir + QStringLiteral("/checkpoint/state.json")), 20000);
    QCOMPARE(::kill(static_cast<pid_t>(p.processId()), SIGINT), 0);
    QVERIFY(p.waitForFinished(10000));
    const auto err = p.readAllStandardError();
    QCOMPARE(p.exitStatus(), QProcess::NormalExit); // the handler ran; the default action would kill it
    QCOMPARE(p.exitCode(), 130);
    const QRegularExpression re(QStringLiteral("interrupted at step (\\d+); checkpoint saved; continue with: "
                                               "attnscope train --resume --out (\\S+)"));
    const auto m = re.match(QString::fromUtf8(err));
    QVERIFY2(m.hasMatch(), err.constData());
    QCOMPARE(m.captured(2), dir);
    const auto stoppedAt = m.captured(1).toLongLong();
    QCOMPARE(checkpointStep(dir), stoppedAt);
    QVERIFY(stoppedAt < 100000);
    QVERIFY(!QFileInfo::exists(dir + QStringLiteral("/model")));

    const auto target = QString::number(stoppedAt + 5);
    QCOMPARE(run({QStringLiteral("train"), QStringLiteral("--resume"), QStringLiteral("--out"), dir,
                  QStringLiteral("--steps"), target}),
             0);
    QCOMPARE(checkpointStep(dir), stoppedAt + 5);
    QVERIFY(QFileInfo::exists(dir + QStringLiteral("/model/config.json")));
    QVERIFY(increasing(loggedSteps(dir)));
}

void TestCliTrain::translationTrainAndEval() {
    // A corpus of adjective–noun phrases, a recipe beside it naming it relatively, a short run, then eval.
    const char* adj[][2] = {
        {"red", "rojo"}, {"big", "grande"}, {"old", "viejo"}, {"new", "nuevo"}, {"white", "blanco"}};
    const char* noun[][2] = {{"car", "coche"},  {"book", "libro"}, {"dog", "perro"},
                             {"man", "hombre"}, {"boat", "barco"}, {"tree", "árbol"}};
    QByteArray train, valid;
    int i = 0;
    for (const auto& a : adj)
        for (const auto& n : noun) {
            const auto line =
                QStringLiteral("the %1 %2\tel %3 %4\t%5\n")
                    .arg(QString::fromUtf8(a[0]), QString::fromUtf8(n[0]), QString::fromUtf8(n[1]),
                         QString::fromUtf8(a[1]), i % 2 ? QStringLiteral("odd") : QStringLiteral("even"))
                    .toUtf8();
            (++i % 5 == 0 ? valid : train) += line;
        }
    QDir(tmp_.path()).mkpath(QStringLiteral("mt"));
    auto write = [&](const QString& name, const QByteArray& text) {
        QFile f(tmp_.filePath(name));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(text);
    };
    write(QStringLiteral("mt/train.tsv"), train);
    write(QStringLiteral("mt/valid.tsv"), valid);
    write(QStringLiteral("mt/recipe.json"), R"({"name": "mt", "task": "translation", "corpus": "train.tsv",
        "valid": "valid.tsv", "spm_vocab_size": 300, "max_tokens": 12,
        "model": {"encoder_layers": 1, "decoder_layers": 1, "d_model": 16, "heads": 2, "d_ff": 32,
                  "max_len": 32},
        "batch_size": 8, "steps": 10, "eval_every": 5, "eval_examples": 6})");
    const auto dir = tmp_.filePath(QStringLiteral("mt-run"));
    QByteArray out, err;
    QCOMPARE(run({QStringLiteral("train"), QStringLiteral("--recipe"),
                  tmp_.filePath(QStringLiteral("mt/recipe.json")), QStringLiteral("--out"), dir},
                 &out, &err),
             0);
    QVERIFY2(out.contains("chrF ") && out.contains("on 6 held-out pairs"), out.constData());
    QCOMPARE(run({QStringLiteral("eval"), QStringLiteral("--model"), dir + QStringLiteral("/model"),
                  QStringLiteral("--pairs"), tmp_.filePath(QStringLiteral("mt/valid.tsv")),
                  QStringLiteral("--out"), tmp_.filePath(QStringLiteral("mt/out.tsv"))},
                 &out, &err),
             0);
    // A header, one row per tag, the total, the timing line.
    const auto lines = QString::fromUtf8(out).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QVERIFY2(lines.size() == 5 && lines[0].contains(QStringLiteral("BLEU")) &&
                 lines[0].contains(QStringLiteral("chrF")),
             out.constData());
    QVERIFY2(lines[1].startsWith(QStringLiteral("even")) && lines[2].startsWith(QStringLiteral("odd")) &&
                 lines[3].startsWith(QStringLiteral("all")),
             out.constData());
    QCOMPARE(lines[3].split(QLatin1Char(' '), Qt::SkipEmptyParts).value(1), QStringLiteral("6"));
    // Progress on stderr, a line each (not a terminal here), ending with the whole.
    QVERIFY2(err.contains("eval: 0/6 pairs (0%)") &&
                 QRegularExpression(QStringLiteral("eval: 6/6 pairs \\(100%\\), \\d+ s\n$"))
                     .match(QString::fromUtf8(err))
                     .hasMatch(),
             err.constData());
    QVERIFY(!err.contains('\r'));
    QFile written(tmp_.filePath(QStringLiteral("mt/out.tsv")));
    QVERIFY(written.open(QIODevice::ReadOnly));
    QCOMPARE(written.readAll().count('\n'), 6);
    // Converted to F16, the model keeps its SentencePiece model byte for byte.
    const auto f16 = tmp_.filePath(QStringLiteral("mt-f16"));
    QCOMPARE(run({QStringLiteral("convert"), QStringLiteral("--model"), dir + QStringLiteral("/model"),
                  QStringLiteral("--out"), f16},
                 &out, &err),
             0);
    const auto spm = QDir(dir + QStringLiteral("/model")).entryList({QStringLiteral("*.model")});
    QCOMPARE(spm.size(), 1);
    QCOMPARE(fileBytes(f16 + QLatin1Char('/') + spm[0]), fileBytes(dir + QStringLiteral("/model/") + spm[0]));
    // A decoder-only model is refused by name.
    QCOMPARE(run({QStringLiteral("eval"), QStringLiteral("--model"), lm_, QStringLiteral("--pairs"),
                  tmp_.filePath(QStringLiteral("mt/valid.tsv"))},
                 &out, &err),
             2);
    QVERIFY2(err.contains("decoder-only"), err.constData());
}

QTEST_GUILESS_MAIN(TestCliTrain)
#include "test_cli_train.moc"
