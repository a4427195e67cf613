// Attention rollout and flow (core::attentionRollout, core::attentionFlow) against an implementation written
// separately from the paper's definitions (tests/reference/rollout_reference.py, Edmonds-Karp for the flow),
// on a shipped encoder-decoder (every kind, mid-decode) and the shipped language model; their invariants
// (rows sum to 1, causal rollout stays causal, flows at most 1); compact storage; and what is refused.

#include "tests/support/ReferencePython.h"
#include "tests/support/SkipReport.h"

#include "core/analysis/AttentionFlow.h"
#include "core/analysis/Rollout.h"
#include "core/base/Errors.h"
#include "core/run/Session.h"
#include "core/run/SnapshotJson.h"

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>

using core::AttentionKind;
using nlohmann::json;

namespace {

const char* const kReverse = ATTNSCOPE_SOURCE_DIR "/resources/models/reverse";
const char* const kLanguageModel = ATTNSCOPE_SOURCE_DIR "/resources/models/tiny-lm";

double worstOf(const core::Matrix& m, const json& ref) {
    if (int(ref.size()) != m.rows)
        return 1e9;
    double worst = 0.0;
    for (int r = 0; r < m.rows; ++r) {
        const auto row = ref[std::size_t(r)].get<std::vector<double>>();
        if (int(row.size()) != m.cols)
            return 1e9;
        for (int c = 0; c < m.cols; ++c)
            worst = std::max(worst, std::abs(double(m.at(r, c)) - row[std::size_t(c)]));
    }
    return worst;
}

core::AttentionSnapshot reverseMidDecode() {
    core::Session session(core::Model::load(kReverse, core::DeviceChoice::Cpu));
    session.analyze("abcdefghij");
    for (int i = 0; i < 4; ++i)
        session.step();
    return session.snapshot();
}

core::AttentionSnapshot languageModelPrompt() {
    core::Session session(core::Model::load(kLanguageModel, core::DeviceChoice::Cpu));
    session.analyze("the weather in the winter");
    session.step();
    return session.snapshot();
}

} // namespace

class TestRollout : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

private Q_SLOTS:
    void matchesTheReference_data();
    void matchesTheReference();
    void invariants();
    void compactStorageAgrees();
    void refusals();
    void flowStops();
};

void TestRollout::matchesTheReference_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<int>("kind");
    QTest::newRow("encoder") << "reverse" << int(AttentionKind::Encoder);
    QTest::newRow("decoder (encoder-decoder)") << "reverse" << int(AttentionKind::Decoder);
    QTest::newRow("cross") << "reverse" << int(AttentionKind::Cross);
    QTest::newRow("decoder-only") << "lm" << int(AttentionKind::Decoder);
}

void TestRollout::matchesTheReference() {
    QFETCH(QString, model);
    QFETCH(int, kind);
    const auto k = AttentionKind(kind);
    const auto snap = model == QStringLiteral("lm") ? languageModelPrompt() : reverseMidDecode();
    const auto dump = tmp_.filePath(model + QStringLiteral("-dump.json"));
    {
        std::ofstream out(dump.toStdString());
        core::writeSnapshotJson(out, snap, "", "");
    }
    const auto result = tmp_.filePath(model + QString::number(kind) + QStringLiteral(".json"));
    QString why;
    if (!runReferenceScript({QStringLiteral("rollout_reference.py"), QStringLiteral("--dump"), dump,
                             QStringLiteral("--kind"), QString::fromUtf8(core::toString(k)),
                             QStringLiteral("--flow"), QStringLiteral("--out"), result},
                            &why)) {
        if (why.startsWith(QStringLiteral("skipped")))
            QSKIP_MISSING(qPrintable(why));
        QFAIL(qPrintable(why));
    }
    std::ifstream in(result.toStdString());
    const auto ref = json::parse(in);
    const auto rollout = core::attentionRollout(snap, k);
    const auto flow = core::attentionFlow(snap, k);
    QVERIFY(flow.has_value());
    const double r = worstOf(rollout.weights, ref["rollout"]);
    const double f = worstOf(flow->weights, ref["flow"]);
    double share = 0.0;
    const auto refShare = ref["share"].get<std::vector<double>>();
    QCOMPARE(rollout.share.size(), refShare.size());
    for (std::size_t i = 0; i < refShare.size(); ++i)
        share = std::max(share, std::abs(double(rollout.share[i]) - refShare[i]));
    qInfo("%s %s, %d × %d: rollout within %.3g of the reference, share %.3g, flow %.3g", qPrintable(model),
          core::toString(k), rollout.weights.rows, rollout.weights.cols, r, share, f);
    QVERIFY(r < 1e-5);
    QVERIFY(share < 1e-5);
    QVERIFY(f < 1e-5);
}

void TestRollout::invariants() {
    const auto snap = reverseMidDecode();
    for (const auto k : {AttentionKind::Encoder, AttentionKind::Decoder, AttentionKind::Cross}) {
        const auto r = core::attentionRollout(snap, k);
        const auto f = core::attentionFlow(snap, k);
        QCOMPARE(r.weights.rows, int(core::queryTokens(snap, k).size()));
        QCOMPARE(r.weights.cols, int(core::keyTokens(snap, k).size()));
        for (int i = 0; i < r.weights.rows; ++i) {
            double sum = 0.0;
            for (int j = 0; j < r.weights.cols; ++j) {
                sum += r.weights.at(i, j);
                QVERIFY(f->weights.at(i, j) >= 0.0f && f->weights.at(i, j) <= 1.0f + 1e-6f);
                if (k == AttentionKind::Decoder && j > i) {
                    QCOMPARE(r.weights.at(i, j), 0.0f); // a position draws on no later one
                    QVERIFY(f->weights.at(i, j) < 1e-9f);
                }
            }
            QVERIFY(std::abs(sum - 1.0) < 1e-5);
            // The source's share and the target's add up to the whole state.
            if (k == AttentionKind::Cross)
                QVERIFY(r.share[std::size_t(i)] > 0.0f && r.share[std::size_t(i)] < 1.0f);
        }
    }
    const auto cross = core::attentionRollout(snap, AttentionKind::Cross);
    const auto dec = core::attentionRollout(snap, AttentionKind::Decoder);
    for (std::size_t i = 0; i < cross.share.size(); ++i)
        QVERIFY(std::abs(cross.share[i] + dec.share[i] - 1.0f) < 1e-5f);
}

void TestRollout::compactStorageAgrees() {
    const auto dense = languageModelPrompt();
    const auto limit = core::AttentionBlock::denseLimit();
    core::AttentionBlock::setDenseLimit(1);
    const auto compact = languageModelPrompt();
    core::AttentionBlock::setDenseLimit(limit);
    QVERIFY(compact.decoder.compact() && compact.decoder.triangular);
    const auto a = core::attentionRollout(dense, AttentionKind::Decoder);
    const auto b = core::attentionRollout(compact, AttentionKind::Decoder);
    double worst = 0.0;
    for (std::size_t i = 0; i < a.weights.data.size(); ++i)
        worst = std::max(worst, double(std::abs(a.weights.data[i] - b.weights.data[i])));
    qInfo("rollout of float16 storage within %.3g of float32's", worst);
    QVERIFY(worst < 2e-3);
}

void TestRollout::refusals() {
    const auto snap = reverseMidDecode();
    QVERIFY_THROWS_EXCEPTION(core::InputError, core::attentionRollout(snap, AttentionKind::Pooling));
    const auto lm = languageModelPrompt();
    QVERIFY_THROWS_EXCEPTION(core::InputError, core::attentionRollout(lm, AttentionKind::Cross));
    core::Session gru(
        core::Model::load(ATTNSCOPE_SOURCE_DIR "/resources/models/en-es-gru", core::DeviceChoice::Cpu));
    gru.analyze("the house");
    try {
        core::attentionRollout(gru.snapshot(), AttentionKind::Cross);
        QFAIL("a GRU's one map was rolled out");
    } catch (const core::InputError& e) {
        QVERIFY(QString::fromUtf8(e.what()).contains(QStringLiteral("one map")));
    }
    core::Session longText(core::Model::load(kLanguageModel, core::DeviceChoice::Cpu));
    std::string text;
    for (int i = 0; i < 30; ++i)
        text += "the cat sat on the mat. ";
    longText.analyze(text);
    QVERIFY(longText.targetTokens().size() > 64);
    try {
        core::attentionFlow(longText.snapshot(), AttentionKind::Decoder);
        QFAIL("flow ran past its limit");
    } catch (const core::InputError& e) {
        QVERIFY(QString::fromUtf8(e.what()).contains(QStringLiteral("at most 64 tokens")));
    }
}

void TestRollout::flowStops() {
    const auto snap = reverseMidDecode();
    int calls = 0;
    const auto stopped = core::attentionFlow(snap, AttentionKind::Encoder, [&](int done, int total) {
        ++calls;
        return done < total / 2;
    });
    QVERIFY(!stopped.has_value());
    QCOMPARE(calls, 6); // 12 source tokens (<bos> … <eos>): stopped after half of them
}

ATTNSCOPE_GUILESS_MAIN(TestRollout)
#include "test_rollout.moc"
