// The attnscope executable: dump's JSON, its exit codes and messages, init, --help.

#include <QtTest>

#include <nlohmann/json.hpp>

using nlohmann::json;

class TestCli : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void dumpText();
    void dumpIdsAndGreedy();
    void decoderOnly();
    void badArguments_data();
    void badArguments();
    void help();
    void screenshot();

private:
    int run(const QStringList& args, QByteArray* out = nullptr, QByteArray* err = nullptr);
    QTemporaryDir tmp_;
    QString model_, lm_;
};

int TestCli::run(const QStringList& args, QByteArray* out, QByteArray* err) {
    QProcess p;
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
    QTest::newRow("shot kind lm")
        << QStringList{shot, png, m, QStringLiteral("@LM@"), QStringLiteral("--kind"), QStringLiteral("cross")}
        << "decoder-only";
    QTest::newRow("shot unwritable") << QStringList{shot, QStringLiteral("/nonexistent-dir/shot.png")}
                                     << "/nonexistent-dir";
    QTest::newRow("steps alone") << QStringList{QStringLiteral("--steps"), QStringLiteral("3")}
                                 << "--steps goes with --screenshot";
}

void TestCli::badArguments() {
    QFETCH(QStringList, args);
    QFETCH(QString, fragment);
    args.replaceInStrings(QStringLiteral("MODEL"), model_);
    args.replaceInStrings(QStringLiteral("@LM@"), lm_);
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

QTEST_GUILESS_MAIN(TestCli)
#include "test_cli.moc"
