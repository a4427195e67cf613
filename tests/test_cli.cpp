// The attnscope executable: dump's JSON, its exit codes and messages, init, convert, train, --help.

#include <QtTest>

#include <csignal>
#include <map>
#include <sys/types.h>

#include <nlohmann/json.hpp>

using nlohmann::json;

class TestCli : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void dumpText();
    void dumpIdsAndGreedy();
    void decoderOnly();
    void convert();
    void badArguments_data();
    void badArguments();
    void help();
    void blasKernels();
    void bench();
    void screenshot();
    void train();
    void trainInterrupted();
    void translationTrainAndEval();

private:
    int run(const QStringList& args, QByteArray* out = nullptr, QByteArray* err = nullptr,
            const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment());
    QString tinyRecipe() const { return tmp_.filePath(QStringLiteral("tiny.json")); }
    QTemporaryDir tmp_;
    QString model_, lm_;
};

int TestCli::run(const QStringList& args, QByteArray* out, QByteArray* err, const QProcessEnvironment& env) {
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(ATTNSCOPE_BINARY), args);
    if (!p.waitForFinished(120000))
        return -1;
    if (out)
        *out = p.readAllStandardOutput();
    if (err)
        *err = p.readAllStandardError();
    return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
}

void TestCli::initTestCase() {
    QVERIFY(tmp_.isValid());
    auto write = [&](const QString& name, const char* text) {
        QFile f(tmp_.filePath(name));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(text);
    };
    write(
        QStringLiteral("ed.json"),
        R"({"name": "ed", "d_model": 32, "heads": 4, "d_ff": 64, "src_vocab_size": 120, "tgt_vocab_size": 110})");
    write(QStringLiteral("lm.json"), R"({"name": "lm", "architecture": "decoder_only", "decoder_layers": 3,
        "d_model": 32, "heads": 2, "d_ff": 64, "tgt_vocab_size": 60, "positional_encoding": "learned"})");
    // Small enough that 30 steps take a few seconds on two cores.
    const char* tiny = R"({"name": "tiny", "task": "copy", "min_len": 1, "max_len": 4,
        "model": {"d_model": 16, "heads": 2, "encoder_layers": 1, "decoder_layers": 1, "d_ff": 32},
        "batch_size": 16, "steps": 30, "checkpoint_every": 10, "eval_every": 15, "eval_examples": 20)";
    write(QStringLiteral("tiny.json"), (std::string(tiny) + "}").c_str());
    write(QStringLiteral("tiny-seed2.json"), (std::string(tiny) + R"(, "seed": 2})").c_str());
    write(QStringLiteral("badfield.json"), (std::string(tiny) + R"(, "learning_rate": 0.1})").c_str());
    model_ = tmp_.filePath(QStringLiteral("ed"));
    lm_ = tmp_.filePath(QStringLiteral("lm"));
    QCOMPARE(
        run({QStringLiteral("init"), QStringLiteral("--config"), tmp_.filePath(QStringLiteral("ed.json")),
             QStringLiteral("--out"), model_, QStringLiteral("--seed"), QStringLiteral("4")}),
        0);
    QCOMPARE(run({QStringLiteral("init"), QStringLiteral("--config"),
                  tmp_.filePath(QStringLiteral("lm.json")), QStringLiteral("--out"), lm_}),
             0);
    QVERIFY(QFileInfo::exists(model_ + QStringLiteral("/src_vocab.json"))); // sizes differ: one file per side
}

void TestCli::dumpText() {
    QByteArray out;
    QCOMPARE(run({QStringLiteral("dump"), QStringLiteral("--model"), model_, QStringLiteral("--src"),
                  QStringLiteral("abc"), QStringLiteral("--tgt"), QStringLiteral("xy")},
                 &out),
             0);
    const auto j = json::parse(out.toStdString());
    QCOMPARE(j["model"].get<std::string>(), std::string("ed"));
    QCOMPARE(j["src_tokens"], json::array({"<bos>", "a", "b", "c", "<eos>"}));
    QCOMPARE(j["tgt_tokens"], json::array({"<bos>", "x", "y"}));
    QCOMPARE(j["attention"]["encoder"].size(), std::size_t(2));        // L
    QCOMPARE(j["attention"]["encoder"][0].size(), std::size_t(4));     // H
    QCOMPARE(j["attention"]["encoder"][0][0].size(), std::size_t(5));  // S
    QCOMPARE(j["attention"]["decoder"][1][3].size(), std::size_t(3));  // T
    QCOMPARE(j["attention"]["cross"][0][0][2].size(), std::size_t(5)); // S keys
    QCOMPARE(j["next_token_logprobs"].size(), std::size_t(110));
}

void TestCli::dumpIdsAndGreedy() {
    const auto file = tmp_.filePath(QStringLiteral("out.json"));
    QCOMPARE(run({QStringLiteral("dump"), QStringLiteral("--model"), model_, QStringLiteral("--src-ids"),
                  QStringLiteral("5,6,7"), QStringLiteral("--greedy"), QStringLiteral("4"),
                  QStringLiteral("--out"), file}),
             0);
    QFile f(file);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const auto j = json::parse(f.readAll().toStdString());
    QCOMPARE(j["src_tokens"].size(), std::size_t(3)); // used exactly as given
    const auto t = j["tgt_tokens"].size();
    QVERIFY(t >= 2 && t <= 5); // <bos> + up to 4, fewer if <eos> came first
    QCOMPARE(j["attention"]["decoder"][0][0].size(), t);
    QCOMPARE(QDir(tmp_.path()).entryList({QStringLiteral("*.tmp*")}).size(), 0);
}

void TestCli::decoderOnly() {
    QByteArray out;
    QCOMPARE(run({QStringLiteral("dump"), QStringLiteral("--model"), lm_, QStringLiteral("--src"),
                  QStringLiteral("hi"), QStringLiteral("--greedy"), QStringLiteral("2")},
                 &out),
             0);
    const auto j = json::parse(out.toStdString());
    QVERIFY(!j["attention"].contains("encoder"));
    QVERIFY(!j["attention"].contains("cross"));
    QCOMPARE(j["attention"]["decoder"].size(), std::size_t(3));
    QCOMPARE(j["next_token_logprobs"].size(), std::size_t(60));
}

namespace {

QByteArray fileBytes(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

void TestCli::convert() {
    // The shipped reverse model as F16: half the bytes, the same greedy answer.
    const auto in = QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/reverse");
    const auto out = tmp_.filePath(QStringLiteral("reverse-f16"));
    QByteArray stdOut, err;
    QCOMPARE(run({QStringLiteral("convert"), QStringLiteral("--model"), in, QStringLiteral("--out"), out,
                  QStringLiteral("--dtype"), QStringLiteral("f16")},
                 &stdOut, &err),
             0);
    QVERIFY2(stdOut.contains("F16"), stdOut.constData());
    for (const auto* name : {"config.json", "vocab.json"})
        QCOMPARE(fileBytes(out + QLatin1Char('/') + QLatin1String(name)),
                 fileBytes(in + QLatin1Char('/') + QLatin1String(name)));
    const auto f32 = QFileInfo(in + QStringLiteral("/model.safetensors")).size();
    const auto f16 = QFileInfo(out + QStringLiteral("/model.safetensors")).size();
    qInfo("reverse/model.safetensors: F32 %lld bytes, F16 %lld bytes", f32, f16);
    QVERIFY2(f16 > f32 / 2 && f16 < f32 * 55 / 100, qPrintable(QString::number(f16)));
    json answer[2];
    for (int i = 0; i < 2; ++i) {
        QCOMPARE(
            run({QStringLiteral("dump"), QStringLiteral("--model"), i ? out : in, QStringLiteral("--src"),
                 QStringLiteral("abcdefghij"), QStringLiteral("--greedy"), QStringLiteral("12")},
                &stdOut, &err),
            0);
        answer[i] = json::parse(stdOut.toStdString());
    }
    QCOMPARE(answer[1]["tgt_tokens"], answer[0]["tgt_tokens"]);
    QCOMPARE(answer[0]["tgt_text"].get<std::string>(), std::string("jihgfedcba")); // the model works at all
}

void TestCli::badArguments_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("fragment");
    const auto m = QStringLiteral("--model");
    QTest::newRow("no model") << QStringList{QStringLiteral("dump"), QStringLiteral("--src"),
                                             QStringLiteral("a")}
                              << "--model DIR is required";
    QTest::newRow("no src") << QStringList{QStringLiteral("dump"), m, QStringLiteral("MODEL")} << "--src";
    QTest::newRow("empty src") << QStringList{QStringLiteral("dump"), m, QStringLiteral("MODEL"),
                                              QStringLiteral("--src"), QString()}
                               << "--src is empty";
    QTest::newRow("bad id") << QStringList{QStringLiteral("dump"), m, QStringLiteral("MODEL"),
                                           QStringLiteral("--src-ids"), QStringLiteral("1,x")}
                            << "'x' is not a token id";
    QTest::newRow("id range") << QStringList{QStringLiteral("dump"), m, QStringLiteral("MODEL"),
                                             QStringLiteral("--src-ids"), QStringLiteral("1,999")}
                              << "token id 999";
    QTest::newRow("unknown option") << QStringList{QStringLiteral("dump"), QStringLiteral("--frobnicate")}
                                    << "unknown argument '--frobnicate'";
    QTest::newRow("bad model") << QStringList{QStringLiteral("dump"), m, QStringLiteral("/nonexistent"),
                                              QStringLiteral("--src"), QStringLiteral("a")}
                               << "not a model directory";
    QTest::newRow("bad device") << QStringList{QStringLiteral("dump"),  m,
                                               QStringLiteral("MODEL"), QStringLiteral("--src"),
                                               QStringLiteral("a"),     QStringLiteral("--device"),
                                               QStringLiteral("tpu")}
                                << "unknown device 'tpu'";
    QTest::newRow("unknown command") << QStringList{QStringLiteral("frob")} << "unknown command";
    const auto conv = QStringLiteral("convert");
    const auto to = QStringLiteral("--out");
    QTest::newRow("convert no out") << QStringList{conv, m, QStringLiteral("MODEL")}
                                    << "--out DIR are required";
    QTest::newRow("convert dtype") << QStringList{conv,
                                                  m,
                                                  QStringLiteral("MODEL"),
                                                  to,
                                                  QStringLiteral("@TMP@/x"),
                                                  QStringLiteral("--dtype"),
                                                  QStringLiteral("bf16")}
                                   << "--dtype must be f16 or f32, not 'bf16'";
    QTest::newRow("convert in place")
        << QStringList{conv, m, QStringLiteral("MODEL"), to, QStringLiteral("MODEL/.")}
        << "is the model's own directory";
    QTest::newRow("convert bad model")
        << QStringList{conv, m, QStringLiteral("/nonexistent"), to, QStringLiteral("@TMP@/x")}
        << "not a model directory";
    const auto shot = QStringLiteral("--screenshot");
    const auto png = QStringLiteral("never-written.png");
    QTest::newRow("shot tab") << QStringList{shot, png, QStringLiteral("--tab"), QStringLiteral("plots")}
                              << "--tab must be attention or positional, not 'plots'";
    QTest::newRow("shot kind") << QStringList{shot, png, QStringLiteral("--kind"), QStringLiteral("self")}
                               << "--kind must be encoder, decoder or cross";
    QTest::newRow("shot size") << QStringList{shot, png, QStringLiteral("--size"), QStringLiteral("10x10")}
                               << "--size expects WxH";
    QTest::newRow("shot steps") << QStringList{shot, png, QStringLiteral("--steps"), QStringLiteral("-1")}
                                << "--steps must be 0 or more";
    QTest::newRow("shot model") << QStringList{shot, png, m, QStringLiteral("/nonexistent")}
                                << "not a model directory";
    QTest::newRow("shot text") << QStringList{shot,
                                              png,
                                              m,
                                              QStringLiteral("MODEL"),
                                              QStringLiteral("--src"),
                                              QString(600, QLatin1Char('a'))}
                               << "at most 512";
    QTest::newRow("shot scale") << QStringList{shot, png, QStringLiteral("--scale"), QStringLiteral("log")}
                                << "--scale must be fixed or per-head";
    QTest::newRow("shot colormap") << QStringList{shot, png, QStringLiteral("--colormap"),
                                                  QStringLiteral("jet")}
                                   << "--colormap must be one of viridis";
    QTest::newRow("shot kind lm") << QStringList{shot,
                                                 png,
                                                 m,
                                                 QStringLiteral("@LM@"),
                                                 QStringLiteral("--kind"),
                                                 QStringLiteral("cross")}
                                  << "decoder-only";
    QTest::newRow("shot unwritable") << QStringList{shot, QStringLiteral("/nonexistent-dir/shot.png")}
                                     << "/nonexistent-dir";
    QTest::newRow("steps alone") << QStringList{QStringLiteral("--steps"), QStringLiteral("3")}
                                 << "--steps goes with --screenshot";
    const auto train = QStringLiteral("train");
    const auto recipe = QStringLiteral("--recipe");
    const auto out = QStringLiteral("--out");
    QTest::newRow("train no recipe") << QStringList{train} << "--recipe FILE.json is required";
    QTest::newRow("train missing recipe")
        << QStringList{train, recipe, QStringLiteral("/nonexistent/r.json")} << "/nonexistent/r.json";
    QTest::newRow("train unknown field")
        << QStringList{train, recipe, QStringLiteral("@TMP@/badfield.json"), out, QStringLiteral("@TMP@/bad")}
        << "unknown field 'learning_rate'";
    QTest::newRow("train nothing to resume")
        << QStringList{train, QStringLiteral("--resume"), out, QStringLiteral("@TMP@/empty-run")}
        << "no checkpoint";
    QTest::newRow("train unwritable") << QStringList{train, recipe, QStringLiteral("@TMP@/tiny.json"), out,
                                                     QStringLiteral("/proc/attnscope-run")}
                                      << "/proc/attnscope-run";
    QTest::newRow("train steps") << QStringList{train, recipe, QStringLiteral("@TMP@/tiny.json"),
                                                QStringLiteral("--steps"), QStringLiteral("0")}
                                 << "--steps expects N >= 1";
}

void TestCli::badArguments() {
    QFETCH(QStringList, args);
    QFETCH(QString, fragment);
    args.replaceInStrings(QStringLiteral("MODEL"), model_);
    args.replaceInStrings(QStringLiteral("@LM@"), lm_);
    args.replaceInStrings(QStringLiteral("@TMP@"), tmp_.path());
    QByteArray out, err;
    QCOMPARE(run(args, &out, &err), 2);
    QVERIFY2(err.contains(fragment.toUtf8()), err.constData());
    QVERIFY(out.isEmpty());
}

void TestCli::help() {
    QByteArray out;
    QCOMPARE(run({QStringLiteral("--help")}, &out), 0);
    QVERIFY(out.contains("dump"));
    QCOMPARE(run({QStringLiteral("dump"), QStringLiteral("--help")}, &out), 0);
    QVERIFY(out.contains("--src-ids") && out.contains("--greedy"));
    QCOMPARE(run({QStringLiteral("train"), QStringLiteral("--help")}, &out), 0);
    QVERIFY(out.contains("--resume") && out.contains("log.csv"));
    QCOMPARE(run({QStringLiteral("convert"), QStringLiteral("--help")}, &out), 0);
    QVERIFY(out.contains("--dtype f16|f32"));
}

void TestCli::blasKernels() {
    auto env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("OPENBLAS_CORETYPE"));
    QByteArray out;
    QCOMPARE(run({QStringLiteral("--version")}, &out, nullptr, env), 0);
    const auto line = QString::fromUtf8(out).split(QLatin1Char('\n')).value(1);
    if (!line.startsWith(QStringLiteral("OpenBLAS kernels: ")))
        QSKIP(qPrintable(QStringLiteral("LibTorch does not call OpenBLAS here (") + line +
                         QStringLiteral(")")));
    const auto kernels = line.mid(18);
    qInfo("OpenBLAS kernels: %s", qPrintable(kernels));
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    // On a CPU with AVX2 the SSE3 fallback is never what runs, recognised CPU or not.
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        QVERIFY2(kernels != QStringLiteral("Prescott"), qPrintable(line));
#endif
    // A kernel set the user asks for stands.
    env.insert(QStringLiteral("OPENBLAS_CORETYPE"), QStringLiteral("Prescott"));
    QCOMPARE(run({QStringLiteral("--version")}, &out, nullptr, env), 0);
    QVERIFY2(out.contains("OpenBLAS kernels: Prescott"), out.constData());
}

void TestCli::bench() {
    // A shipped model and a short source keep this quick; the numbers only have to be there and sane.
    const auto reverse = QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/reverse");
    QByteArray out, err;
    QCOMPARE(
        run({QStringLiteral("bench"), QStringLiteral("--model"), reverse, QStringLiteral("--src"),
             QStringLiteral("abc"), QStringLiteral("--runs"), QStringLiteral("3"), QStringLiteral("--json")},
            &out, &err),
        0);
    const auto j = json::parse(out.toStdString());
    QCOMPARE(j["model"]["name"].get<std::string>(), std::string("reverse"));
    QCOMPARE(j["src_words"].get<int>(), 1);
    QCOMPARE(j["src_tokens"].get<int>(), 5); // <bos> a b c <eos>
    QVERIFY(j["output_tokens"].get<int>() >= 1);
    QVERIFY(j["machine"]["threads"].get<int>() >= 1);
    QCOMPARE(j["runs"].get<int>(), 3);
    std::map<std::string, json> rows;
    for (const auto& r : j["rows"])
        rows[r["id"].get<std::string>()] = r;
    for (const char* id : {"translate", "analyze", "steps", "snapshot", "step"}) {
        QVERIFY2(rows.count(id), id);
        const auto& r = rows[id];
        QCOMPARE(r["runs"].get<int>(), 3);
        QVERIFY2(r["min"].get<double>() > 0 && r["min"].get<double>() <= r["median"].get<double>() &&
                     r["median"].get<double>() <= r["max"].get<double>(),
                 r.dump().c_str());
    }
    // Every run's whole covers its parts, so the fastest parts fit within the slowest whole.
    QVERIFY(rows["analyze"]["min"].get<double>() + rows["steps"]["min"].get<double>() <=
            rows["translate"]["max"].get<double>());

    QCOMPARE(run({QStringLiteral("bench"), QStringLiteral("--model"), reverse, QStringLiteral("--runs"),
                  QStringLiteral("0")},
                 &out, &err),
             2);
    QVERIFY2(err.contains("--runs expects a number from 1"), err.constData());
    QVERIFY(out.isEmpty());
}

void TestCli::screenshot() {
    const auto file = tmp_.filePath(QStringLiteral("shot.png"));
    QByteArray out, err;
    QCOMPARE(
        run({QStringLiteral("--screenshot"), file, QStringLiteral("--model"), model_, QStringLiteral("--src"),
             QStringLiteral("abc"), QStringLiteral("--steps"), QStringLiteral("2"), QStringLiteral("--kind"),
             QStringLiteral("cross"), QStringLiteral("--size"), QStringLiteral("1000x700")},
            &out, &err),
        0);
    QVERIFY2(out.contains("wrote"), out.constData());
    QFile f(file);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const auto png = f.readAll();
    // PNG signature, then the IHDR chunk: width and height as big-endian 32-bit numbers.
    QVERIFY(png.startsWith("\x89PNG\r\n\x1a\n"));
    auto be32 = [&](int at) {
        return (quint32(quint8(png[at])) << 24) | (quint32(quint8(png[at + 1])) << 16) |
               (quint32(quint8(png[at + 2])) << 8) | quint32(quint8(png[at + 3]));
    };
    QCOMPARE(be32(16), quint32(1000));
    QCOMPARE(be32(20), quint32(700));
    QVERIFY(png.size() > 20000); // a real window, not a blank frame
    QCOMPARE(run({QStringLiteral("--screenshot"), tmp_.filePath(QStringLiteral("pe.png")),
                  QStringLiteral("--model"), lm_, QStringLiteral("--tab"), QStringLiteral("positional")}),
             0);
    QVERIFY(QFileInfo(tmp_.filePath(QStringLiteral("pe.png"))).size() > 20000);
}

namespace {

// The steps of log.csv's rows, checking the header and that every row has its six columns.
QList<qint64> loggedSteps(const QString& dir) {
    QFile f(dir + QStringLiteral("/log.csv"));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    const auto lines = QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    if (lines.isEmpty() || lines.front() != QStringLiteral("step,loss,lr,tokens_per_s,elapsed_s,accuracy"))
        return {};
    QList<qint64> steps;
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const auto cells = lines[i].split(QLatin1Char(','));
        if (cells.size() != 6)
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

void TestCli::train() {
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

void TestCli::trainInterrupted() {
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

void TestCli::translationTrainAndEval() {
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

QTEST_GUILESS_MAIN(TestCli)
#include "test_cli.moc"
