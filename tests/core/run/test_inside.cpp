// The Inside view's numbers (core::Session::inside): for every attention kind of every shipped model, a
// rotary model, a GPT-2 folder and the seed's own model, softmax(q Kᵀ/√d_k) recomputed here in double from
// the shown q and K gives the weights the decode captured (the heatmap's row) within 1e-5, and z from those
// weights and V; the seed's PyTorch code's own intermediate tensors (tests/reference/seed_inside.py) agree
// stage by stage; bad kinds, layers, heads and rows are refused by name; and the sampling pipeline draws the
// token step() takes.

#include "tests/support/ReferencePython.h"
#include "tests/support/SkipReport.h"
#include "tests/support/TestModels.h"

#include "core/base/Errors.h"
#include "core/model/ModelConfig.h"
#include "core/run/Session.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr double kWeightTolerance = 1e-5;

struct Worst {
    double weights = 0.0, z = 0.0, scores = 0.0, output = 0.0;
    long rows = 0;
};

// Checks one opened row against what it claims: recomputes the weights and z from q, K and V in double.
void checkRow(const core::InsideRow& r, Worst& w) {
    const int i = r.query.row, tk = r.k.rows, hs = r.headSize;
    QCOMPARE(int(r.captured.size()), tk);
    QCOMPARE(int(r.visible.size()), tk);
    std::vector<double> s(static_cast<std::size_t>(tk));
    double top = -INFINITY;
    for (int j = 0; j < tk; ++j) {
        double dot = 0.0, sum = 0.0, magnitude = 0.0;
        for (int d = 0; d < hs; ++d) {
            dot += double(r.q.at(i, d)) * double(r.k.at(j, d));
            sum += double(r.products.at(j, d));
            magnitude += std::abs(double(r.products.at(j, d)));
        }
        // float32's error in a sum grows with its terms, not with the sum: large products that cancel (as in
        // the induction model's sharp heads) leave a small score whose float32 error is the terms' size.
        const double scale = std::max(1.0, magnitude);
        w.scores = std::max(w.scores, std::abs(dot - double(r.scores[std::size_t(j)])) / scale);
        w.scores = std::max(w.scores, std::abs(sum - dot) / scale);
        s[std::size_t(j)] = r.visible[std::size_t(j)] ? dot / std::sqrt(double(hs)) : -INFINITY;
        top = std::max(top, s[std::size_t(j)]);
    }
    double total = 0.0;
    for (auto& x : s)
        total += (x = std::exp(x - top));
    std::vector<double> z(static_cast<std::size_t>(hs), 0.0);
    for (int j = 0; j < tk; ++j) {
        const double p = s[std::size_t(j)] / total;
        w.weights = std::max(w.weights, std::abs(p - double(r.captured[std::size_t(j)])));
        w.weights = std::max(w.weights, std::abs(p - double(r.weights[std::size_t(j)])));
        for (int d = 0; d < hs; ++d)
            z[std::size_t(d)] += double(r.captured[std::size_t(j)]) * double(r.v.at(j, d));
    }
    for (int d = 0; d < hs; ++d)
        w.z = std::max(w.z, std::abs(z[std::size_t(d)] - double(r.z[std::size_t(d)])));
    for (int c = 0; c < r.dModel; ++c)
        w.output = std::max(w.output,
                            std::abs(double(r.residual[std::size_t(c)]) + double(r.attnOut[std::size_t(c)]) -
                                     double(r.output[std::size_t(c)])));
    for (int d = 0; d < hs; ++d) // this head's z is its slice of the concatenation W_O reads
        QCOMPARE(r.concat[std::size_t(r.query.head * hs + d)], r.z[std::size_t(d)]);
    ++w.rows;
}

// Opens every row of every kind, layer and head the session's state has.
void checkAll(const core::Session& session, Worst& w) {
    const auto& c = session.model().config();
    for (auto kind :
         {core::AttentionKind::Encoder, core::AttentionKind::Decoder, core::AttentionKind::Cross}) {
        if (kind != core::AttentionKind::Decoder && !c.hasEncoder())
            continue;
        const int layers = kind == core::AttentionKind::Encoder ? c.encoderLayers : c.decoderLayers;
        for (int l = 0; l < layers; ++l)
            for (int h = 0; h < c.heads; ++h)
                for (int i = 0; i < session.queryRows(kind); ++i) {
                    const auto r = session.inside({kind, l, h, i});
                    checkRow(r, w);
                    if (QTest::currentTestFailed())
                        return;
                }
    }
}

// A source (or prompt) from the model's own vocabulary: <bos>, the first ordinary tokens, <eos>.
std::vector<int64_t> someIds(const core::Model& m, bool source, int n) {
    const auto& v = (source ? m.sourceTokenizer() : m.targetTokenizer()).vocab();
    std::vector<int64_t> ids{v.bos()};
    for (int64_t id = 0; id < v.size() && int(ids.size()) <= n; ++id)
        if (id != v.bos() && id != v.eos() && id != v.pad() && id != v.unk())
            ids.push_back(id);
    if (source)
        ids.push_back(v.eos());
    return ids;
}

void skipOrFail(const QString& why) {
    if (why.startsWith(QStringLiteral("skipped")))
        QSKIP_MISSING(qPrintable(why));
    QFAIL(qPrintable(why));
}

double worstDiff(const std::vector<float>& ours, const json& ref) {
    const auto r = ref.get<std::vector<double>>();
    if (r.size() != ours.size())
        return 1e9;
    double worst = 0.0;
    for (std::size_t i = 0; i < r.size(); ++i)
        worst = std::max(worst, std::abs(double(ours[i]) - r[i]) / std::max(1.0, std::abs(r[i])));
    return worst;
}

// Rows × width of ours against rows of the reference's columns first … first + width − 1.
double worstDiff(const core::Matrix& ours, const json& ref, int first = 0) {
    if (int(ref.size()) != ours.rows)
        return 1e9;
    double worst = 0.0;
    for (int r = 0; r < ours.rows; ++r)
        for (int c = 0; c < ours.cols; ++c) {
            const double x = ref[std::size_t(r)][std::size_t(first + c)].get<double>();
            worst = std::max(worst, std::abs(double(ours.at(r, c)) - x) / std::max(1.0, std::abs(x)));
        }
    return worst;
}

} // namespace

class TestInside : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void matchesCapturedWeights_data();
    void matchesCapturedWeights();
    void gpt2FolderMatches();
    void seedIntermediatesMatch();
    void refusesWhatTheModelLacks_data();
    void refusesWhatTheModelLacks();
    void pipelineDrawsTheStepsToken_data();
    void pipelineDrawsTheStepsToken();

private:
    QTemporaryDir tmp_;
};

void TestInside::initTestCase() {
    QVERIFY(tmp_.isValid());
}

void TestInside::matchesCapturedWeights_data() {
    QTest::addColumn<QString>("model"); // a shipped model's folder, or "rope" / "gpt2-shape" for random ones
    // The Transformers: the recurrent families' rows (a learned query, additive scores) are checked against
    // their own definition in test_families.
    for (const auto& e : fs::directory_iterator(ATTNSCOPE_SOURCE_DIR "/resources/models"))
        if (fs::exists(e.path() / "config.json") &&
            !core::ModelConfig::fromFile((e.path() / "config.json").string()).recurrent())
            QTest::newRow(e.path().filename().c_str()) << QString::fromStdString(e.path().string());
    QTest::newRow("rope encoder-decoder") << QStringLiteral("rope");
    QTest::newRow("gpt2-shaped decoder-only") << QStringLiteral("gpt2-shape");
}

void TestInside::matchesCapturedWeights() {
    QFETCH(QString, model);
    std::shared_ptr<const core::Model> m;
    if (model == QStringLiteral("rope")) {
        m = randomModel(smallConfig(core::Architecture::EncoderDecoder, core::PositionalEncoding::Rope), 3);
    } else if (model == QStringLiteral("gpt2-shape")) {
        auto c = smallConfig(core::Architecture::DecoderOnly, core::PositionalEncoding::Learned,
                             core::LayerNormKind::Standard);
        c.activation = core::Activation::GeluTanh;
        c.tieOutput = true;
        m = randomModel(c, 4);
    } else {
        m = core::Model::load(model.toStdString(), core::DeviceChoice::Cpu);
    }
    const bool enc = m->config().hasEncoder();
    core::Session session(m);
    Worst w;
    // A teacher-forced prefix of several tokens (one pass, a causal mask inside it), then single steps
    // through the KV cache, then one step back.
    const auto src = someIds(*m, true, 5);
    auto prefix = someIds(*m, false, enc ? 3 : 6);
    session.analyzeIds(enc ? src : prefix, enc ? prefix : std::vector<int64_t>{});
    checkAll(session, w);
    for (int i = 0; i < 3 && session.step() >= 0; ++i) {
    }
    checkAll(session, w);
    session.back();
    checkAll(session, w);
    if (QTest::currentTestFailed())
        return;
    qInfo("%ld rows: weights from q, K vs captured %.3g; z from weights, V %.3g; scores %.3g; output %.3g",
          w.rows, w.weights, w.z, w.scores, w.output);
    QVERIFY(w.rows > 0);
    QVERIFY(w.weights <= kWeightTolerance);
    QVERIFY(w.z <= kWeightTolerance);
    QVERIFY(w.scores <= 1e-5);
    QVERIFY(w.output <= 1e-5);
}

void TestInside::gpt2FolderMatches() {
    const auto dir = tmp_.filePath(QStringLiteral("gpt2"));
    QString why;
    if (!runReferenceScript({QStringLiteral("gpt2_reference.py"), dir}, &why))
        return skipOrFail(why);
    const auto m = core::Model::load(dir.toStdString(), core::DeviceChoice::Cpu);
    core::Session session(m);
    session.analyze("the weather in the winter");
    for (int i = 0; i < 3 && session.step() >= 0; ++i) {
    }
    Worst w;
    checkAll(session, w);
    qInfo("GPT-2 folder (c_attn split into Q, K, V), %ld rows: weights %.3g, z %.3g", w.rows, w.weights, w.z);
    QVERIFY(w.rows > 0);
    QVERIFY(w.weights <= kWeightTolerance);
    QVERIFY(w.z <= kWeightTolerance);
}

void TestInside::seedIntermediatesMatch() {
    const auto dir = tmp_.filePath(QStringLiteral("seed"));
    QString why;
    if (!runReferenceScript({QStringLiteral("seed_inside.py"), QStringLiteral("--out"), dir}, &why))
        return skipOrFail(why);
    const auto m = core::Model::load(dir.toStdString(), core::DeviceChoice::Cpu);
    std::ifstream in((dir + QStringLiteral("/inside.json")).toStdString());
    const auto ref = json::parse(in);
    // Stage by stage against the seed's tensors: residual, x, q, k, v, weights, concat, attn_out (and
    // memory).
    std::map<std::string, double> worst;
    long rows = 0, offRows = 0;
    int ablated = 0;
    for (const auto& cs : ref["cases"]) {
        const auto src = cs["src_ids"].get<std::vector<int64_t>>();
        const auto tgt = cs["tgt_ids"].get<std::vector<int64_t>>();
        // The heads the seed's run switched off (their columns of W_O's input zeroed), switched off here.
        core::HeadAblation off;
        for (const auto& [kindName, pairs] : cs["ablate"].items())
            for (const auto& p : pairs)
                off.set({*core::attentionKindNamed(kindName), p[0].get<int>(), p[1].get<int>()}, true);
        ablated += off.empty() ? 0 : 1;
        // Both roads: the target teacher-forced in one pass, and fed a token at a time through the cache.
        for (const bool stepwise : {false, true}) {
            core::Session session(m);
            session.setAblation(off);
            if (stepwise) {
                session.analyzeIds(src, {tgt.front()});
                for (std::size_t t = 1; t < tgt.size(); ++t)
                    session.force(tgt[t]);
            } else {
                session.analyzeIds(src, tgt);
            }
            for (auto kind :
                 {core::AttentionKind::Encoder, core::AttentionKind::Decoder, core::AttentionKind::Cross}) {
                const auto& layers = cs[core::toString(kind)];
                for (int l = 0; l < int(layers.size()); ++l) {
                    const auto& b = layers[std::size_t(l)];
                    for (int h = 0; h < m->config().heads; ++h)
                        for (int i = 0; i < session.queryRows(kind); ++i) {
                            const auto r = session.inside({kind, l, h, i});
                            const int hs = r.headSize;
                            // A head off is flagged, and its slice of what W_O reads is zero.
                            QCOMPARE(r.headsOff.size(), std::size_t(m->config().heads));
                            for (int k = 0; k < m->config().heads; ++k) {
                                QCOMPARE(bool(r.headsOff[std::size_t(k)]), off.off({kind, l, k}));
                                if (off.off({kind, l, k}))
                                    for (int d = 0; d < hs; ++d)
                                        QCOMPARE(r.concat[std::size_t(k * hs + d)], 0.0f);
                            }
                            offRows += off.off({kind, l, h}) ? 1 : 0;
                            const auto at = [&](const char* k) { return json(b[k][std::size_t(i)]); };
                            auto& wst = worst;
                            wst["x"] = std::max(wst["x"], worstDiff(r.x, b["x"]));
                            wst["q"] = std::max(wst["q"], worstDiff(r.q, b["q"], h * hs));
                            wst["k"] = std::max(wst["k"], worstDiff(r.k, b["k"], h * hs));
                            wst["v"] = std::max(wst["v"], worstDiff(r.v, b["v"], h * hs));
                            wst["weights"] =
                                std::max(wst["weights"],
                                         worstDiff(r.weights, b["attn"][std::size_t(h)][std::size_t(i)]));
                            wst["captured"] =
                                std::max(wst["captured"],
                                         worstDiff(r.captured, b["attn"][std::size_t(h)][std::size_t(i)]));
                            wst["concat"] = std::max(wst["concat"], worstDiff(r.concat, at("concat")));
                            wst["attn_out"] = std::max(wst["attn_out"], worstDiff(r.attnOut, at("attn_out")));
                            wst["residual"] =
                                std::max(wst["residual"], worstDiff(r.residual, at("residual")));
                            if (kind == core::AttentionKind::Cross)
                                wst["memory"] = std::max(wst["memory"], worstDiff(r.memory, b["memory"]));
                            ++rows;
                        }
                }
            }
        }
    }
    QString line;
    for (const auto& [k, v] : worst)
        line += QStringLiteral(" %1 %2;").arg(QString::fromStdString(k)).arg(v, 0, 'g', 3);
    qInfo("seed's intermediates, %ld rows (%d cases, %d of them with heads off; one pass and stepwise; %ld "
          "rows "
          "of a head off), largest relative difference:%s",
          rows, int(ref["cases"].size()), ablated, offRows, qPrintable(line));
    QVERIFY(ablated > 0 && offRows > 0);
    QCOMPARE(worst.size(), std::size_t(10));
    for (const auto& [k, v] : worst)
        QVERIFY2(v <= 1e-5, k.c_str());
}

void TestInside::refusesWhatTheModelLacks_data() {
    QTest::addColumn<bool>("decoderOnly");
    QTest::addColumn<int>("kind");
    QTest::addColumn<int>("layer");
    QTest::addColumn<int>("head");
    QTest::addColumn<int>("row");
    QTest::addColumn<QString>("message");
    const auto E = int(core::AttentionKind::Encoder), D = int(core::AttentionKind::Decoder),
               C = int(core::AttentionKind::Cross), P = int(core::AttentionKind::Pooling);
    QTest::newRow("layer past the end")
        << false << E << 2 << 0 << 0 << "layer 2 is out of range: the encoder has layers 0–1";
    QTest::newRow("negative layer") << false << D << -1 << 0 << 0
                                    << "layer -1 is out of range: the decoder has layers 0–1";
    QTest::newRow("head past the end")
        << false << C << 0 << 4 << 0 << "head 4 is out of range: each layer has heads 0–3";
    QTest::newRow("row past the source")
        << false << E << 0 << 0 << 7 << "row 7 is out of range: the source has rows 0–6";
    QTest::newRow("row past the target")
        << false << D << 0 << 0 << 2 << "row 2 is out of range: the target at this step has rows 0–1";
    QTest::newRow("cross on decoder-only")
        << true << C << 0 << 0 << 0 << "a decoder-only model has decoder attention only";
    QTest::newRow("encoder on decoder-only")
        << true << E << 0 << 0 << 0 << "a decoder-only model has decoder attention only";
    QTest::newRow("pooling") << false << P << 0 << 0 << 0 << "kind pooling is out of range";
}

void TestInside::refusesWhatTheModelLacks() {
    QFETCH(bool, decoderOnly);
    QFETCH(int, kind);
    QFETCH(int, layer);
    QFETCH(int, head);
    QFETCH(int, row);
    QFETCH(QString, message);
    const auto m = randomModel(
        smallConfig(decoderOnly ? core::Architecture::DecoderOnly : core::Architecture::EncoderDecoder,
                    core::PositionalEncoding::Sinusoidal));
    core::Session session(m);
    QVERIFY_THROWS_EXCEPTION(core::InputError, session.inside({}));
    session.analyzeIds({1, 5, 6, 7, 8, 9, 2}, {1});
    session.force(10);
    try {
        session.inside({core::AttentionKind(kind), layer, head, row});
        QFAIL("no error");
    } catch (const core::InputError& e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains(message), e.what());
    }
}

void TestInside::pipelineDrawsTheStepsToken_data() {
    QTest::addColumn<bool>("greedy");
    QTest::addColumn<double>("temperature");
    QTest::addColumn<int>("topK");
    QTest::addColumn<double>("topP");
    QTest::newRow("greedy") << true << 1.0 << 0 << 1.0;
    QTest::newRow("T=1") << false << 1.0 << 0 << 1.0;
    QTest::newRow("T=0.7 top-k 5") << false << 0.7 << 5 << 1.0;
    QTest::newRow("top-p 0.9") << false << 1.0 << 0 << 0.9;
    QTest::newRow("T=1.5 top-k 8 top-p 0.8") << false << 1.5 << 8 << 0.8;
}

void TestInside::pipelineDrawsTheStepsToken() {
    QFETCH(bool, greedy);
    QFETCH(double, temperature);
    QFETCH(int, topK);
    QFETCH(double, topP);
    const auto m = core::Model::load(ATTNSCOPE_SOURCE_DIR "/resources/models/en-es", core::DeviceChoice::Cpu);
    int draws = 0, distinct = 0;
    std::set<int64_t> seen;
    for (uint64_t seed = 1; seed <= 6; ++seed) {
        core::Session session(m);
        session.setSampling({greedy, temperature, topK, topP, seed});
        session.analyze("the cat sleeps in the house");
        for (int step = 0; step < 4 && !session.finished(); ++step) {
            const auto p = session.samplingPipeline(50);
            double kept = 0.0;
            for (const auto& c : p.candidates) {
                QVERIFY(!c.inTopP || c.inTopK); // top-p cuts after top-k
                QCOMPARE(c.kept > 0.0, c.inTopP);
                kept += c.kept;
            }
            if (p.keptCount <= 50)
                QVERIFY(std::abs(kept - 1.0) < 1e-9);
            if (topK > 0)
                QVERIFY(p.keptCount <= topK);
            QVERIFY(p.keptMass > 0.0 && p.keptMass <= 1.0 + 1e-12);
            QVERIFY(!p.finished);
            const auto token = session.step();
            QCOMPARE(p.chosen, token);
            seen.insert(token);
            ++draws;
        }
    }
    distinct = int(seen.size());
    qInfo("%d draws, %d distinct tokens: each the pipeline's chosen token", draws, distinct);
    QVERIFY(draws >= 6);
}

ATTNSCOPE_GUILESS_MAIN(TestInside)
#include "test_inside.moc"
