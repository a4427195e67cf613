// The attnscope executable: dump's JSON, its exit codes and messages, init, convert, screenshot, --help and
// --version. The training commands are in test_cli_train.cpp, bench in test_cli_bench.cpp.

#include "tests/support/CliRunner.h"
#include "tests/support/SkipReport.h"

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

using nlohmann::json;

class TestCli : public QObject, protected CliRunner {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void dumpText();
    void dumpCutsLongText();
    void dumpIdsAndGreedy();
    void decoderOnly();
    void convert();
    void badArguments_data();
    void badArguments();
    void stdoutFull();
    void help();
    void blasKernels();
    void ompWait();
    void heads();

private:
    QString model_, lm_;
};

void TestCli::initTestCase() {
    QVERIFY(tmp_.isValid());
    auto write = [&](const QString& name, const QByteArray& text) {
        QFile f(tmp_.filePath(name));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(text);
    };
    write(QStringLiteral("ed.json"), edConfigJson);
    write(QStringLiteral("lm.json"), lmConfigJson);
    // badArguments' train rows need a valid recipe and one with a field train does not know.
    write(QStringLiteral("tiny.json"), tinyRecipeJson());
    write(QStringLiteral("badfield.json"), tinyRecipeJson(R"(, "learning_rate": 0.1)"));
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

void TestCli::dumpCutsLongText() {
    // 600 characters and the specials into a model of max_len 512: its first 512 tokens are read, and the
    // output says how long the text was; --past-max-len reads it all (sinusoidal positions).
    const QString text(600, QLatin1Char('a'));
    for (const bool past : {false, true}) {
        QStringList args{QStringLiteral("dump"), QStringLiteral("--model"), model_, QStringLiteral("--src"),
                         text};
        if (past)
            args << QStringLiteral("--past-max-len");
        QByteArray out;
        QCOMPARE(run(args, &out), 0);
        const auto j = json::parse(out.toStdString());
        QCOMPARE(j["text_tokens"].get<int>(), 602);
        QCOMPARE(j["read_tokens"].get<int>(), past ? 602 : 512);
        QCOMPARE(j["max_len"].get<int>(), 512);
        QCOMPARE(j["src_tokens"].size(), std::size_t(past ? 602 : 512));
        QCOMPARE(j["attention"]["encoder"][0][0].size(), std::size_t(past ? 602 : 512));
    }
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

namespace {

// dump's rows, with an unknown command and an option given as a value, then convert's.
void addDumpAndConvertRows() {
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
                                    << "unknown option '--frobnicate'";
    QTest::newRow("bad model") << QStringList{QStringLiteral("dump"), m, QStringLiteral("/nonexistent"),
                                              QStringLiteral("--src"), QStringLiteral("a")}
                               << "not a model directory";
    QTest::newRow("bad device") << QStringList{QStringLiteral("dump"),  m,
                                               QStringLiteral("MODEL"), QStringLiteral("--src"),
                                               QStringLiteral("a"),     QStringLiteral("--device"),
                                               QStringLiteral("tpu")}
                                << "unknown device 'tpu'";
    QTest::newRow("unknown command") << QStringList{QStringLiteral("frob")} << "unknown command";
    QTest::newRow("option as value") << QStringList{QStringLiteral("dump"), m, QStringLiteral("--src"),
                                                    QStringLiteral("a")}
                                     << "--model needs a value, not the option --src";
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
}

// The screenshot's rows, with three of dump's (600 ids, --past-max-len on learned positions, a device as
// --out) and --steps without --screenshot among them, in the order they were added.
void addScreenshotRows() {
    const auto m = QStringLiteral("--model");
    const auto shot = QStringLiteral("--screenshot");
    const auto png = QStringLiteral("never-written.png");
    QTest::newRow("shot tab") << QStringList{shot, png, QStringLiteral("--tab"), QStringLiteral("plots")}
                              << "--tab must be attention, positional, train, heads, inside, side, rollout, "
                                 "ablation or compare, not 'plots'";
    QTest::newRow("shot kind") << QStringList{shot, png, QStringLiteral("--kind"), QStringLiteral("self")}
                               << "--kind must be encoder, decoder, cross or pooling";
    QTest::newRow("shot size") << QStringList{shot, png, QStringLiteral("--size"), QStringLiteral("10x10")}
                               << "--size expects WxH";
    QTest::newRow("shot steps") << QStringList{shot, png, QStringLiteral("--steps"), QStringLiteral("-1")}
                                << "--steps must be 0 or more";
    QTest::newRow("shot model") << QStringList{shot, png, m, QStringLiteral("/nonexistent")}
                                << "not a model directory";
    // A text is cut at max_len (dumpCutsLongText); ids are used exactly as given, so too many are refused.
    QStringList ids600;
    for (int i = 0; i < 600; ++i)
        ids600 << QStringLiteral("5");
    QTest::newRow("long ids") << QStringList{QStringLiteral("dump"), m, QStringLiteral("MODEL"),
                                             QStringLiteral("--src-ids"), ids600.join(QLatin1Char(','))}
                              << "at most 512";
    QTest::newRow("past learned") << QStringList{QStringLiteral("dump"), m,
                                                 QStringLiteral("@LM@"), QStringLiteral("--src"),
                                                 QStringLiteral("ab"),   QStringLiteral("--past-max-len")}
                                  << "positions are learned";
    QTest::newRow("shot scale") << QStringList{shot, png, QStringLiteral("--scale"),
                                               QStringLiteral("decibel")}
                                << "--scale must be fixed, per-head or log";
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
    // A head or layer the model lacks drew another one, with exit 0.
    QTest::newRow("shot layer 99") << QStringList{shot,
                                                  png,
                                                  m,
                                                  QStringLiteral("MODEL"),
                                                  QStringLiteral("--kind"),
                                                  QStringLiteral("cross"),
                                                  QStringLiteral("--layer"),
                                                  QStringLiteral("99")}
                                   << "--layer 99: this model's cross attention has layers 0..";
    QTest::newRow("shot head -1")
        << QStringList{shot, png, m, QStringLiteral("MODEL"), QStringLiteral("--head"), QStringLiteral("-1")}
        << "--head -1: expects a head number";
    QTest::newRow("shot head 9")
        << QStringList{shot, png, m, QStringLiteral("MODEL"), QStringLiteral("--head"), QStringLiteral("9")}
        << "--head 9: this model's encoder attention has heads 0..";
    // --out replaced device nodes with a plain file (as root, /dev/null itself).
    QTest::newRow("dump out device") << QStringList{QStringLiteral("dump"),     m,
                                                    QStringLiteral("MODEL"),    QStringLiteral("--src"),
                                                    QStringLiteral("a"),        QStringLiteral("--out"),
                                                    QStringLiteral("/dev/null")}
                                     << "/dev/null: it is a device, not a regular file";
    QTest::newRow("steps alone") << QStringList{QStringLiteral("--steps"), QStringLiteral("3")}
                                 << "--steps goes with --screenshot";
}

// train's rows; the recipes they name are written by initTestCase.
void addTrainRows() {
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

} // namespace

void TestCli::badArguments_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("fragment");
    addDumpAndConvertRows();
    addScreenshotRows();
    addTrainRows();
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

void TestCli::stdoutFull() {
    // Output that cannot be written is an error, not a success with nothing to show.
    QProcess p;
    p.setStandardOutputFile(QStringLiteral("/dev/full"));
    p.start(QStringLiteral(ATTNSCOPE_BINARY), {QStringLiteral("dump"), QStringLiteral("--model"), model_,
                                               QStringLiteral("--src"), QStringLiteral("abc")});
    QVERIFY(p.waitForFinished(120000));
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);
    QCOMPARE(p.exitCode(), 2);
    const auto err = p.readAllStandardError();
    QVERIFY2(err.contains("attnscope dump: cannot write to standard output"), err.constData());
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
        QSKIP_MISSING(qPrintable(QStringLiteral("LibTorch does not call OpenBLAS here (") + line +
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

void TestCli::heads() {
    // The decoder-only test model: 3 layers × 2 heads, every one scored, sorted by the chosen column.
    QByteArray out, err;
    QCOMPARE(run({QStringLiteral("heads"), QStringLiteral("--model"), lm_, QStringLiteral("--sequences"),
                  QStringLiteral("2"), QStringLiteral("--sort"), QStringLiteral("previous"),
                  QStringLiteral("--json")},
                 &out, &err),
             0);
    const auto j = json::parse(out.toStdString());
    QCOMPARE(j["sorted_by"].get<std::string>(), std::string("previous"));
    QCOMPARE(int(j["heads"].size()), 6);
    double last = 2.0;
    for (const auto& h : j["heads"]) {
        const double p = h["previous_token"].get<double>();
        QVERIFY(p <= last && p >= 0.0);
        last = p;
        for (const char* key : {"entropy_bits", "distance", "first_token", "induction"})
            QVERIFY2(h[key].get<double>() >= 0.0, key);
    }
    QCOMPARE(run({QStringLiteral("heads"), QStringLiteral("--model"), lm_, QStringLiteral("--top"),
                  QStringLiteral("2")},
                 &out),
             0);
    QVERIFY2(out.contains("layer  head  entropy  distance   first  previous  induction"), out.constData());
    QCOMPARE(out.count('\n'), 4); // the title, the header, two heads
    QCOMPARE(run({QStringLiteral("heads"), QStringLiteral("--model"), lm_, QStringLiteral("--sort"),
                  QStringLiteral("size")},
                 &out, &err),
             2);
    QVERIFY2(err.contains("--sort expects entropy, distance, first, previous or induction, not 'size'"),
             err.constData());
}

void TestCli::ompWait() {
    // The launcher limits libgomp's spin-waiting unless the user chose a wait policy or spin count.
    auto env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("OMP_WAIT_POLICY"));
    env.remove(QStringLiteral("GOMP_SPINCOUNT"));
    QByteArray out;
    QCOMPARE(run({QStringLiteral("--version")}, &out, nullptr, env), 0);
    QVERIFY2(out.contains("OpenMP idle threads: GOMP_SPINCOUNT=10000\n"), out.constData());
    env.insert(QStringLiteral("OMP_WAIT_POLICY"), QStringLiteral("PASSIVE"));
    QCOMPARE(run({QStringLiteral("--version")}, &out, nullptr, env), 0);
    QVERIFY2(out.contains("OpenMP idle threads: OMP_WAIT_POLICY=PASSIVE\n"), out.constData());
    env.remove(QStringLiteral("OMP_WAIT_POLICY"));
    env.insert(QStringLiteral("GOMP_SPINCOUNT"), QStringLiteral("INFINITY"));
    QCOMPARE(run({QStringLiteral("--version")}, &out, nullptr, env), 0);
    QVERIFY2(out.contains("OpenMP idle threads: GOMP_SPINCOUNT=INFINITY\n"), out.constData());
}

ATTNSCOPE_GUILESS_MAIN(TestCli)
#include "test_cli.moc"
