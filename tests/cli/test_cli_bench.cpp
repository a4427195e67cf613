// `attnscope bench`: every section's JSON (the translation of one sentence, the table by model size and
// length with its paint rows, the keystroke to repaint, and the long input), the text output, and its
// argument errors.

#include "tests/support/CliRunner.h"

#include <QtTest>

#include <tuple>

#include <algorithm>
#include <map>

#include <nlohmann/json.hpp>

using nlohmann::json;

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

namespace {

// Every timing of a bench row is positive and ordered; a constant (a size) has min = median = max.
bool sane(const json& row, int runs) {
    return row["runs"].get<int>() == runs && row["min"].get<double>() > 0 &&
           row["min"].get<double>() <= row["median"].get<double>() &&
           row["median"].get<double>() <= row["max"].get<double>();
}

std::map<std::string, json> rowsById(const json& rows) {
    std::map<std::string, json> out;
    for (const auto& r : rows)
        out[r["id"].get<std::string>()] = r;
    return out;
}

// The seed's recurrent models, as modules: three rows, each timed.
void checkRecurrent(const json& j) {
    const auto& rec = j["recurrent"]["rows"];
    QCOMPARE(rec.size(), std::size_t(3));
    for (const auto& row : rec)
        QVERIFY2(row["median"].get<double>() > 0.0 && row["runs"].get<int>() == 3, row.dump().c_str());
    QCOMPARE(rec[2]["id"].get<std::string>(), std::string("translator_step"));
}

// The products alone: both paths timed at every shape, where this build packs.
void checkProducts(const json& j) {
    const auto packedWith = j["machine"]["packed_weights"].get<std::string>();
    QCOMPARE(j["products"]["packed_with"].get<std::string>(), packedWith);
    const auto& cells = j["products"]["cells"];
    QCOMPARE(cells.size(), std::size_t(11));
    for (const auto& c : cells) {
        QVERIFY2(c["sgemm_gflops"].get<double>() > 0.0, c.dump().c_str());
        if (packedWith.rfind("oneDNN", 0) == 0)
            QVERIFY2(c["packed_gflops"].get<double>() > 0.0 &&
                         c["packed_ms"]["min"].get<double>() <= c["packed_ms"]["max"].get<double>(),
                     c.dump().c_str());
    }
}

// Rollout, flow, heads switched off, value weighting: each row timed, each target reported.
void checkAnalyses(const json& j) {
    const auto& analyses = j["analyses"]["cases"];
    QCOMPARE(analyses.size(), std::size_t(2));
    QCOMPARE(analyses[0]["id"].get<std::string>(), std::string("ablation-default"));
    QCOMPARE(analyses[1]["id"].get<std::string>(), std::string("rollout-gpt2"));
    QCOMPARE(analyses[1]["T"].get<int>(), 1024);
    for (const auto& c : analyses) {
        for (const auto& row : c["rows"])
            QVERIFY2(row["median"].get<double>() > 0.0 &&
                         row["min"].get<double>() <= row["max"].get<double>(),
                     row.dump().c_str());
        QCOMPARE(c["targets"].size(), std::size_t(1));
        QCOMPARE(c["targets"][0]["value"], c["rows"][c["id"] == "rollout-gpt2" ? 1 : 0]["median"]);
    }
}

// The translation section: the reverse model on "abc", each part of a run timed.
void checkTranslation(const json& j) {
    const auto& t = j["translation"];
    QCOMPARE(t["model"]["name"].get<std::string>(), std::string("reverse"));
    QCOMPARE(t["src_words"].get<int>(), 1);
    QCOMPARE(t["src_tokens"].get<int>(), 5); // <bos> a b c <eos>
    QVERIFY(t["output_tokens"].get<int>() >= 1);
    auto rows = rowsById(t["rows"]);
    for (const char* id : {"translate", "analyze", "steps", "snapshot", "step"}) {
        QVERIFY2(rows.count(id), id);
        QVERIFY2(sane(rows[id], 3), rows[id].dump().c_str());
    }
    // Every run's whole covers its parts, so the fastest parts fit within the slowest whole.
    QVERIFY(rows["analyze"]["min"].get<double>() + rows["steps"]["min"].get<double>() <=
            rows["translate"]["max"].get<double>());
}

// The table: a cell per size and T, skipped past max_len, with its paint rows and snapshot bytes.
void checkSizes(const json& j) {
    QCOMPARE(j["lengths"], json({8, 32, 40}));
    const auto& sizes = j["sizes"];
    QCOMPARE(sizes.size(), std::size_t(3));
    QCOMPARE(sizes[0]["id"].get<std::string>(), std::string("default"));
    QCOMPARE(sizes[0]["name"].get<std::string>(), std::string("reverse"));
    QCOMPARE(sizes[0]["max_len"].get<int>(), 41); // a decode step at position 40 exists
    QCOMPARE(sizes[1]["architecture"].get<std::string>(), std::string("decoder_only"));
    QCOMPARE(sizes[2]["max_len"].get<int>(), 32); // a directory keeps its own
    for (const auto& size : sizes) {
        const bool encDec = size["architecture"] == "encoder_decoder";
        for (const auto& cell : size["cells"]) {
            const auto T = cell["T"].get<int>();
            if (T > size["max_len"].get<int>()) {
                QVERIFY(cell.contains("skipped"));
                QVERIFY(cell["rows"].empty());
                continue;
            }
            auto rows = rowsById(cell["rows"]);
            for (const char* id :
                 {"analysis", "analysis_nocapture", "capture_cost", "snapshot", "decode_step"}) {
                QVERIFY2(rows.count(id), (size.dump() + " " + id).c_str());
                QVERIFY2(sane(rows[id], 3), rows[id].dump().c_str());
            }
            // The widgets painted offscreen from the cell's snapshot.
            for (const char* id : {"paint_grid", "paint_detail"}) {
                QVERIFY2(rows.count(id), (size.dump() + " " + id).c_str());
                QVERIFY2(sane(rows[id], 3), rows[id].dump().c_str());
                const auto kind = encDec ? std::string("(cross)") : std::string("(decoder self)");
                QVERIFY2(rows[id]["label"].get<std::string>().find(kind) != std::string::npos,
                         rows[id].dump().c_str());
            }
            QCOMPARE(cell["decode_position"].get<int>(), std::min(T, size["max_len"].get<int>() - 1));
            // [layer][head][query][key] floats of each kind, and the next-token log-probabilities.
            const auto L = size["decoder_layers"].get<std::size_t>(), H = size["heads"].get<std::size_t>();
            const auto kinds = encDec ? 3u : 1u;
            const auto bytes = 4 * (kinds * L * H * T * T + size["tgt_vocab"].get<std::size_t>());
            QCOMPARE(cell["snapshot_bytes"].get<std::size_t>(), bytes);
            QCOMPARE(rows["snapshot"]["median"].get<double>(), static_cast<double>(bytes) / 1e6);
            QCOMPARE(rows.count("greedy"), std::size_t(encDec ? 1 : 0));
            QCOMPARE(cell.contains("greedy_tokens"), encDec);
            if (encDec) {
                QVERIFY(sane(rows["greedy"], 3));
                QCOMPARE(cell["greedy_tokens"].size(), std::size_t(4));
            }
        }
    }
    QVERIFY(sizes[2]["cells"][2].contains("skipped"));
}

// The inside section: --model's shape at T = 64 (cross-attention) and GPT-2's at 1024 (decoder self);
// each run's total is its compute and its repaint, held to 30 and 100 ms.
void checkInside(const json& j) {
    const auto& in = j["inside"];
    QCOMPARE(in["cases"].size(), std::size_t(2));
    const std::tuple<const char*, int, const char*, double> insideCases[] = {
        {"default", 64, "cross", 30.0}, {"gpt2", 1024, "decoder", 100.0}};
    for (std::size_t i = 0; i < 2; ++i) {
        const auto& c = in["cases"][i];
        QCOMPARE(c["id"].get<std::string>(), std::string(std::get<0>(insideCases[i])));
        QCOMPARE(c["T"].get<int>(), std::get<1>(insideCases[i]));
        QCOMPARE(c["kind"].get<std::string>(), std::string(std::get<2>(insideCases[i])));
        auto rows = rowsById(c["rows"]);
        for (const char* id : {"compute", "paint", "total"}) {
            QVERIFY2(rows.count(id), id);
            QVERIFY2(sane(rows[id], 3), rows[id].dump().c_str());
        }
        QVERIFY(rows["compute"]["min"].get<double>() + rows["paint"]["min"].get<double>() <=
                rows["total"]["max"].get<double>() + 1e-9);
        QCOMPARE(c["target"]["limit"].get<double>(), std::get<3>(insideCases[i]));
        QCOMPARE(c["target"]["met"].get<bool>(),
                 rows["total"]["median"].get<double>() <= std::get<3>(insideCases[i]));
    }
}

// The keystroke section: --model's shape at 64 and 1024 tokens; both beyond the reverse model's max_len
// of 32, so both on random weights with max_len raised.
void checkKeystroke(const json& j) {
    const auto& k = j["keystroke"];
    QCOMPARE(k["model"].get<std::string>(), std::string("reverse"));
    QCOMPARE(k["debounce_ms_not_included"].get<int>(), 30);
    QCOMPARE(k["cells"].size(), std::size_t(2));
    const std::pair<int, double> targets[] = {{64, 16.0}, {1024, 100.0}};
    for (std::size_t i = 0; i < 2; ++i) {
        const auto& cell = k["cells"][i];
        QCOMPARE(cell["T"].get<int>(), targets[i].first);
        QCOMPARE(cell["target_ms"].get<double>(), targets[i].second);
        QCOMPARE(cell["note"].get<std::string>(),
                 "max_len raised from 32 to " + std::to_string(targets[i].first));
        auto rows = rowsById(cell["rows"]);
        for (const char* id : {"keystroke_repaint", "keystroke_result", "result_repaint"}) {
            QVERIFY2(rows.count(id), id);
            QVERIFY2(sane(rows[id], 3), rows[id].dump().c_str());
        }
        // Every run's result arrives before its repaint ends.
        QVERIFY(rows["keystroke_result"]["median"].get<double>() <
                rows["keystroke_repaint"]["median"].get<double>());
        QCOMPARE(cell["target_met"].get<bool>(),
                 rows["keystroke_repaint"]["median"].get<double>() <= targets[i].second);
    }
}

} // namespace

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
