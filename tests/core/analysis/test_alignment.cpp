// core::alignmentOf, which the Side by side page and `attnscope align` show: a row per output token, each the
// cross-attention the output was produced with, read back from an independent Session run (the mean over
// layers and heads computed here, and one chosen head); a GRU translator's one map; rows that sum to 1; the
// greedy translation; refusals for a model without a source and for heads it lacks; argmaxAgreement of an
// alignment with itself (1), with a differently tokenized source (−1), and on hand-made maps.

#include "tests/support/TestModels.h"

#include "core/analysis/Alignment.h"
#include "core/base/Errors.h"
#include "core/run/Session.h"

#include <QtTest>

#include <cmath>
#include <numeric>

class TestAlignment : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void transformerRowsAreTheCrossAttention_data();
    void transformerRowsAreTheCrossAttention();
    void gruHasOneMap();
    void refusals();
    void agreement();
};

namespace {

core::ModelConfig gruConfig() {
    core::ModelConfig c;
    c.name = "gru";
    c.family = core::Family::GruAttention;
    c.score = core::RecurrentScore::Additive;
    c.hiddenSize = 16;
    c.dModel = 16;
    c.dFf = 16;
    c.srcVocabSize = c.tgtVocabSize = 40;
    c.maxLen = 32;
    return c;
}

} // namespace

void TestAlignment::transformerRowsAreTheCrossAttention_data() {
    QTest::addColumn<int>("layer");
    QTest::addColumn<int>("head");
    QTest::newRow("mean of layers and heads") << -1 << -1;
    QTest::newRow("layer 1, head 2") << 1 << 2;
    QTest::newRow("layer 0, mean of heads") << 0 << -1;
}

void TestAlignment::transformerRowsAreTheCrossAttention() {
    QFETCH(int, layer);
    QFETCH(int, head);
    const auto model =
        randomModel(smallConfig(core::Architecture::EncoderDecoder, core::PositionalEncoding::Sinusoidal), 3);
    const auto a = core::alignmentOf(model, "abcde", layer, head, 6);
    // The same run by hand: greedy steps, then the snapshot's cross-attention averaged here.
    core::Session s(model);
    s.analyze("abcde");
    while (!s.finished() && s.decodedCount() < 6)
        s.step();
    const auto snap = s.snapshot();
    QCOMPARE(a.translation, s.decodedText());
    QCOMPARE(a.outputs.size() + 1, snap.tgtTokens.size());
    QCOMPARE(a.weights.rows, static_cast<int>(a.outputs.size()));
    QCOMPARE(a.weights.cols, static_cast<int>(snap.srcTokens.size()));
    QCOMPARE(a.layers, 2);
    QCOMPARE(a.heads, 4);
    double worst = 0.0;
    for (int q = 0; q < a.weights.rows; ++q) {
        QCOMPARE(a.outputs[std::size_t(q)].text, snap.tgtTokens[std::size_t(q) + 1].text);
        double rowSum = 0.0;
        for (int j = 0; j < a.weights.cols; ++j) {
            double expected = 0.0;
            int n = 0;
            for (int l = 0; l < 2; ++l)
                for (int h = 0; h < 4; ++h)
                    if ((layer < 0 || l == layer) && (head < 0 || h == head)) {
                        expected += snap.cross.at(l, h, q, j);
                        ++n;
                    }
            worst = std::max(worst, std::abs(a.weights.at(q, j) - expected / n));
            rowSum += a.weights.at(q, j);
        }
        QVERIFY(std::abs(rowSum - 1.0) < 1e-5);
    }
    QVERIFY2(worst < 1e-6, qPrintable(QString::number(worst)));
}

void TestAlignment::gruHasOneMap() {
    auto c = gruConfig();
    const auto model = randomModel(c, 4);
    const auto a = core::alignmentOf(model, "abcd", -1, -1, 5);
    QCOMPARE(a.layers, 1);
    QCOMPARE(a.heads, 1);
    core::Session s(model);
    s.analyze("abcd");
    while (!s.finished() && s.decodedCount() < 5)
        s.step();
    const auto snap = s.snapshot();
    QCOMPARE(a.weights.rows, static_cast<int>(snap.tgtTokens.size()) - 1);
    for (int q = 0; q < a.weights.rows; ++q)
        for (int j = 0; j < a.weights.cols; ++j)
            QCOMPARE(a.weights.at(q, j), snap.cross.at(0, 0, q, j));
}

void TestAlignment::refusals() {
    const auto lm =
        randomModel(smallConfig(core::Architecture::DecoderOnly, core::PositionalEncoding::Learned));
    const auto translator =
        randomModel(smallConfig(core::Architecture::EncoderDecoder, core::PositionalEncoding::Sinusoidal));
    const auto says = [](const std::function<void()>& f, const QString& words) {
        try {
            f();
            return false;
        } catch (const core::InputError& e) {
            return QString(e.what()).contains(words);
        }
    };
    QVERIFY(says([&] { core::alignmentOf(lm, "abc"); }, QStringLiteral("has no attention over a source")));
    QVERIFY(says([&] { core::alignmentOf(translator, "abc", 2, 0, 3); },
                 QStringLiteral("has 2 layer(s) of 4 head(s) of cross-attention; layer 2, head 0")));
    QVERIFY(
        says([&] { core::alignmentOf(translator, "abc", 0, 4, 3); }, QStringLiteral("head 4 is not one")));
    QVERIFY(says([&] { core::alignmentOf(translator, ""); }, QStringLiteral("empty")));
}

void TestAlignment::agreement() {
    const auto model =
        randomModel(smallConfig(core::Architecture::EncoderDecoder, core::PositionalEncoding::Sinusoidal), 3);
    const auto a = core::alignmentOf(model, "abcde", -1, -1, 6);
    QCOMPARE(core::argmaxAgreement(a, a), 1.0);
    auto other = a;
    other.source.pop_back(); // another tokenization of the source: positions are not comparable
    QCOMPARE(core::argmaxAgreement(a, other), -1.0);
    // Hand-made: outputs x y x over three source tokens; b produced y x (no second x).
    core::Alignment p, r;
    p.source = r.source = {{1, "s0"}, {2, "s1"}, {3, "s2"}};
    p.outputs = {{5, "x"}, {6, "y"}, {5, "x"}};
    r.outputs = {{6, "y"}, {5, "x"}};
    p.weights = core::Matrix(3, 3);
    p.weights.data = {0.8f, 0.1f, 0.1f, /**/ 0.1f, 0.8f, 0.1f, /**/ 0.1f, 0.1f, 0.8f};
    r.weights = core::Matrix(2, 3);
    r.weights.data = {0.1f, 0.2f, 0.7f, /**/ 0.9f, 0.05f, 0.05f};
    // x (first) matches r's x: both at s0; y: s1 against s2; the second x has no partner.
    QCOMPARE(core::argmaxAgreement(p, r), 0.5);
    r.outputs = {{7, "z"}, {8, "w"}};
    QCOMPARE(core::argmaxAgreement(p, r), -1.0);
}

QTEST_APPLESS_MAIN(TestAlignment)
#include "test_alignment.moc"
