// `attnscope bench`: every section's JSON (the translation of one sentence, the table by model size and
// length with its paint rows, the keystroke to repaint, and the long input), the text output, and its
// argument errors.

#include "tests/support/BenchChecks.h"
#include "tests/support/CliRunner.h"

#include <QtTest>

#include <tuple>

#include <algorithm>
#include <map>

#include <nlohmann/json.hpp>

using nlohmann::json;
using namespace benchchecks;

class TestCliBench : public QObject, protected CliRunner {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void bench();
    void benchLong();
    void benchEncoderOnly();
    void benchSoak();
    void benchPackingOff();
    void benchBadArguments_data();
    void benchBadArguments();

private:
    QString lm_;
};

void TestCliBench::initTestCase() {
    QVERIFY(tmp_.isValid());
    QFile f(tmp_.filePath(QStringLiteral("lm.json")));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(lmConfigJson);
    f.close();
    lm_ = tmp_.filePath(QStringLiteral("lm"));
    QCOMPARE(
        run({QStringLiteral("init"), QStringLiteral("--config"), f.fileName(), QStringLiteral("--out"), lm_}),
        0);
}

void TestCliBench::bench() {
    // Shipped and scratch models that are tiny and short inputs keep this quick; the numbers only have to be
    // there and sane. The sizes cover the default size (random weights of --model's shape, max_len raised to
    // the longest T), a decoder-only directory, and a directory whose max_len 32 cuts the table short.
    const auto reverse = QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/reverse");
    QByteArray out, err;
    QCOMPARE(run({QStringLiteral("bench"), QStringLiteral("--model"), reverse, QStringLiteral("--src"),
                  QStringLiteral("abc"), QStringLiteral("--quick"), QStringLiteral("--sizes"),
                  QStringLiteral("default,") + lm_ + QLatin1Char(',') + reverse, QStringLiteral("--lengths"),
                  QStringLiteral("8,32,40"), QStringLiteral("--greedy"), QStringLiteral("4"),
                  QStringLiteral("--json")},
                 &out, &err),
             0);
    const auto j = json::parse(out.toStdString());
    QVERIFY(j["machine"]["threads"].get<int>() >= 1);
    QCOMPARE(j["runs"].get<int>(), 3); // --quick
    QCOMPARE(j["warmup"].get<int>(), 1);
    // A failed QVERIFY returns from its check only: the test stops here, as it did when they were inline.
    using Check = void (*)(const json&);
    for (const Check check : {checkRecurrent, checkProducts, checkAnalyses, checkTranslation, checkSizes,
                              checkInside, checkKeystroke}) {
        check(j);
        if (QTest::currentTestFailed())
            return;
    }

    // The text table: a column per T and a row per measure; --no-gui leaves the paint rows out.
    QCOMPARE(run({QStringLiteral("bench"), QStringLiteral("--only"), QStringLiteral("table"),
                  QStringLiteral("--quick"), QStringLiteral("--no-gui"), QStringLiteral("--sizes"), reverse,
                  QStringLiteral("--lengths"), QStringLiteral("4,40")},
                 &out, &err),
             0);
    for (const char* text : {"T=4", "T=40", "analysis, capture on (ms)", "decode step at T", "snapshot",
                             "T=40 is beyond max_len 32"})
        QVERIFY2(out.contains(text), out.constData());
    for (const char* text : {"translation", "paint", "Keystroke"})
        QVERIFY2(!out.contains(text), out.constData());

    // The keystroke section alone, as text.
    QCOMPARE(run({QStringLiteral("bench"), QStringLiteral("--only"), QStringLiteral("keystroke"),
                  QStringLiteral("--model"), reverse, QStringLiteral("--runs"), QStringLiteral("1"),
                  QStringLiteral("--warmup"), QStringLiteral("0")},
                 &out, &err),
             0);
    for (const char* text : {"== Keystroke to repaint", "T=64", "T=1024", "keystroke to repaint (ms)",
                             "the 30 ms pause", "max_len raised from 32 to 1024", "target for the median"})
        QVERIFY2(out.contains(text), out.constData());
    QVERIFY2(!out.contains("== Analysis"), out.constData());
}

void TestCliBench::benchLong() {
    // GPT-2 small's shape at 256 tokens rather than 2,048, and one run, so this stays quick; what is checked
    // is that the section runs, reads the text as T tokens, and that its numbers hang together.
    QByteArray out, err;
    QCOMPARE(run({QStringLiteral("bench"), QStringLiteral("--only"), QStringLiteral("long"),
                  QStringLiteral("--long-length"), QStringLiteral("256"), QStringLiteral("--quick"),
                  QStringLiteral("--json")},
                 &out, &err),
             0);
    const auto j = json::parse(out.toStdString());
    QCOMPARE(j["runs"].get<int>(), 1); // --quick, for this section
    QCOMPARE(j["warmup"].get<int>(), 0);
    for (const char* other : {"translation", "sizes", "keystroke"})
        QVERIFY2(!j.contains(other), other);

    const auto& l = j["long"];
    const std::size_t T = 256, layers = 12, heads = 12, vocab = 50257;
    QCOMPARE(l["T"].get<std::size_t>(), T);
    QCOMPARE(l["tokens"].get<std::size_t>(), T);           // <bos> and the text, exactly T
    QCOMPARE(l["note"].get<std::string>(), std::string()); // 256 fits GPT-2's own max_len of 1024
    QCOMPARE(l["kind"].get<std::string>(), std::string("decoder self-attention"));
    QCOMPARE(l["runs"].get<int>(), 1);
    QCOMPARE(l["heads"].size(), std::size_t(2));
    QVERIFY(l["heads"][0] != l["heads"][1]);

    auto rows = rowsById(l["rows"]);
    for (const char* id : {"text_repaint", "text_result", "head_repaint"}) {
        QVERIFY2(rows.count(id), id);
        QVERIFY2(sane(rows[id], 1), rows[id].dump().c_str());
    }
    QVERIFY(rows["text_result"]["median"].get<double>() < rows["text_repaint"]["median"].get<double>());
    // A stall may be 0 (the thread never missed a tick), never negative.
    for (const char* id : {"text_stall", "head_stall"}) {
        QVERIFY2(rows.count(id), id);
        const auto& r = rows[id];
        QVERIFY2(r["runs"].get<int>() == 1 && r["min"].get<double>() >= 0 &&
                     r["min"].get<double>() <= r["median"].get<double>() &&
                     r["median"].get<double>() <= r["max"].get<double>(),
                 r.dump().c_str());
    }

    // Attention of 12 layers x 12 heads x T x T: float32 in every cell, or a compact form that is smaller
    // but still holds at least a byte for each weight a causal row can see; then the log-probabilities.
    const auto cells = layers * heads * T * T, visible = layers * heads * T * (T + 1) / 2;
    const auto attention = l["attention_bytes"].get<std::size_t>();
    QCOMPARE(l["attention_dense_bytes"].get<std::size_t>(), 4 * cells);
    QVERIFY2(attention == 4 * cells || (attention < 4 * cells && attention >= visible),
             std::to_string(attention).c_str());
    QCOMPARE(l["logprob_bytes"].get<std::size_t>(), 4 * vocab);
    const auto snapshot = l["snapshot_bytes"].get<std::size_t>();
    QCOMPARE(snapshot, attention + 4 * vocab);
    QCOMPARE(rows["snapshot"]["median"].get<double>(), static_cast<double>(snapshot) / 1e6);
    QVERIFY(l["peak_rss_bytes"].get<std::size_t>() > snapshot); // the process held it

    // The targets judge the worst stall of either kind, and the snapshot against 1 GiB.
    const auto& targets = l["targets"];
    QCOMPARE(targets.size(), std::size_t(2));
    QCOMPARE(targets[0]["id"].get<std::string>(), std::string("stall"));
    QCOMPARE(targets[0]["limit"].get<double>(), 100.0);
    QCOMPARE(targets[0]["value"].get<double>(),
             std::max(rows["text_stall"]["max"].get<double>(), rows["head_stall"]["max"].get<double>()));
    QCOMPARE(targets[0]["met"].get<bool>(), targets[0]["value"].get<double>() <= 100.0);
    QCOMPARE(targets[1]["id"].get<std::string>(), std::string("snapshot"));
    QCOMPARE(targets[1]["limit"].get<double>(), 1073.741824);
    QCOMPARE(targets[1]["value"].get<double>(), static_cast<double>(snapshot) / 1e6);
    QVERIFY(targets[1]["met"].get<bool>()); // 38 MB at most at T = 256
}

void TestCliBench::benchEncoderOnly() {
    // An encoder-only model's paint rows show its encoder self-attention: between timed runs the views are
    // given a one-cell stand-in of the kind they show (with it in the decoder's place, the heatmap waited
    // for a replot that never came).
    const auto dir = initModel(QStringLiteral("enc"),
                               R"({"name": "enc", "architecture": "encoder_only", "encoder_layers": 2,
                               "d_model": 32, "heads": 2, "d_ff": 64, "src_vocab_size": 60,
                               "tgt_vocab_size": 60, "positional_encoding": "learned"})");
    QVERIFY(!dir.isEmpty());
    QByteArray out, err;
    QCOMPARE(run({QStringLiteral("bench"), QStringLiteral("--only"), QStringLiteral("table"),
                  QStringLiteral("--sizes"), dir, QStringLiteral("--lengths"), QStringLiteral("8"),
                  QStringLiteral("--runs"), QStringLiteral("2"), QStringLiteral("--warmup"),
                  QStringLiteral("0"), QStringLiteral("--json")},
                 &out, &err),
             0);
    const auto cell = json::parse(out.toStdString())["sizes"][0]["cells"][0];
    auto rows = rowsById(cell["rows"]);
    for (const char* id : {"paint_grid", "paint_detail"}) {
        QVERIFY2(rows.count(id), out.constData());
        QVERIFY2(sane(rows[id], 2), rows[id].dump().c_str());
        QVERIFY2(rows[id]["label"].get<std::string>().find("(encoder self)") != std::string::npos,
                 rows[id].dump().c_str());
    }
    QVERIFY(!rows.count("decode_step")); // an encoder-only model decodes nothing
}

void TestCliBench::benchSoak() {
    // A short soak: that it runs both models, counts what it did, and samples the process along the way.
    QByteArray out, err;
    QCOMPARE(run({QStringLiteral("bench"), QStringLiteral("--only"), QStringLiteral("soak"),
                  QStringLiteral("--soak-steps"), QStringLiteral("300"), QStringLiteral("--soak-analyses"),
                  QStringLiteral("250"), QStringLiteral("--json")},
                 &out, &err),
             0);
    const auto s = json::parse(out.toStdString())["soak"];
    QCOMPARE(s["models"].size(), std::size_t(2));
    QCOMPARE(s["analyses"].get<int>(), 250);
    QCOMPARE(s["steps"].get<int>(), 300);
    QCOMPARE(s["warmup_analyses"].get<int>(), 25);
    // Samples at 25, 125, 225 analyses and at the end.
    QCOMPARE(s["curve"].size(), std::size_t(4));
    QCOMPARE(s["curve"][0]["analyses"].get<int>(), 25);
    QCOMPARE(s["curve"][3]["analyses"].get<int>(), 250);
    for (const auto& p : s["curve"]) {
        QVERIFY(p["resident_kb"].get<long>() > 10000);
        QVERIFY(p["fds"].get<int>() >= 3); // stdin, stdout, stderr at least
        QVERIFY(p["threads"].get<int>() >= 1);
    }
    const double growth = s["resident_growth_percent"].get<double>();
    QCOMPARE(s["memory_flat"].get<bool>(), growth <= 5.0);
}

void TestCliBench::benchPackingOff() {
    // ATTNSCOPE_PACKED_WEIGHTS=0 leaves every product to LibTorch, and the bench says so.
    auto env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("ATTNSCOPE_PACKED_WEIGHTS"), QStringLiteral("0"));
    QByteArray out;
    QCOMPARE(run({QStringLiteral("bench"), QStringLiteral("--only"), QStringLiteral("products"),
                  QStringLiteral("--quick"), QStringLiteral("--json")},
                 &out, nullptr, env),
             0);
    const auto j = json::parse(out.toStdString());
    const auto packedWith = j["machine"]["packed_weights"].get<std::string>();
    QVERIFY2(packedWith == "off (ATTNSCOPE_PACKED_WEIGHTS=0)" || packedWith == "not built",
             packedWith.c_str());
    for (const auto& c : j["products"]["cells"]) {
        QVERIFY2(c["packed_ms"].is_null() && c["packed_gflops"].get<double>() == 0.0, c.dump().c_str());
        QVERIFY(c["sgemm_gflops"].get<double>() > 0.0);
    }
}

void TestCliBench::benchBadArguments_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("no runs") << QStringList{QStringLiteral("--runs"), QStringLiteral("0")}
                             << QStringLiteral("--runs expects a number from 1");
    QTest::newRow("zero length") << QStringList{QStringLiteral("--lengths"), QStringLiteral("16,0")}
                                 << QStringLiteral("--lengths expects a number from 1");
    QTest::newRow("not a length") << QStringList{QStringLiteral("--lengths"), QStringLiteral("16,x")}
                                  << QStringLiteral("--lengths: 'x' is not a whole number");
    QTest::newRow("no sizes") << QStringList{QStringLiteral("--sizes"), QStringLiteral(",")}
                              << QStringLiteral("--sizes needs at least one entry");
    QTest::newRow("only what") << QStringList{QStringLiteral("--only"), QStringLiteral("paint")}
                               << QStringLiteral("--only expects translation, table, keystroke, long, "
                                                 "inside, analyses, recurrent, products or soak");
    QTest::newRow("recurrent weights elsewhere")
        << QStringList{QStringLiteral("--only"), QStringLiteral("table"),
                       QStringLiteral("--recurrent-weights"), QStringLiteral("/tmp")}
        << QStringLiteral("--recurrent-weights goes with the recurrent section");
    QTest::newRow("recurrent weights missing")
        << QStringList{QStringLiteral("--only"), QStringLiteral("recurrent"),
                       QStringLiteral("--recurrent-weights"), QStringLiteral("/nonexistent")}
        << QStringLiteral("/nonexistent/classifier.safetensors");
    QTest::newRow("keystroke without widgets")
        << QStringList{QStringLiteral("--only"), QStringLiteral("keystroke"), QStringLiteral("--no-gui")}
        << QStringLiteral("does not go with --no-gui");
    QTest::newRow("long without widgets")
        << QStringList{QStringLiteral("--only"), QStringLiteral("long"), QStringLiteral("--no-gui")}
        << QStringLiteral("--only long paints widgets; it does not go with --no-gui");
    QTest::newRow("long length") << QStringList{QStringLiteral("--only"), QStringLiteral("long"),
                                                QStringLiteral("--long-length"), QStringLiteral("1")}
                                 << QStringLiteral("--long-length expects a number from 2 to 4096");
    QTest::newRow("size not a model")
        << QStringList{QStringLiteral("--only"), QStringLiteral("table"), QStringLiteral("--sizes"),
                       QStringLiteral("/nonexistent")}
        << QStringLiteral("/nonexistent");
}

void TestCliBench::benchBadArguments() {
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    QByteArray out, err;
    QCOMPARE(run(QStringList{QStringLiteral("bench")} + args, &out, &err), 2);
    QVERIFY2(err.contains(message.toUtf8()), err.constData());
    QVERIFY2(!out.contains("(ms)"), out.constData()); // nothing measured: every table has a row in ms
}

QTEST_GUILESS_MAIN(TestCliBench)
#include "test_cli_bench.moc"
