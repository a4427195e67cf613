// Head scores on hand-made heads whose behaviour is known (each scores 1 on its own measure), and on random
// models of both architectures: every head scored, values in range, the same with the same seed.

#include "tests/support/TestModels.h"

#include "core/analysis/HeadAnalysis.h"
#include "core/base/Errors.h"

#include <QtTest>

#include <cmath>

using namespace core;

namespace {

// One layer of four heads over <bos> R R with |R| = n: head 0 looks at the previous position, head 1 at the
// induction key in the second copy (and at itself elsewhere), head 2 at position 0, head 3 is uniform over
// the visible keys.
AttentionBlock knownHeads(int n) {
    const int t = 1 + 2 * n;
    AttentionBlock b;
    b.resize(1, 4, t, t);
    for (int q = 0; q < t; ++q) {
        b.data.mutableData()[b.index(0, 0, q, std::max(0, q - 1))] = 1.0f;
        b.data.mutableData()[b.index(0, 1, q, q > n ? 2 + (q - 1 - n) : q)] = 1.0f;
        b.data.mutableData()[b.index(0, 2, q, 0)] = 1.0f;
        for (int k = 0; k <= q; ++k)
            b.data.mutableData()[b.index(0, 3, q, k)] = 1.0f / float(q + 1);
    }
    return b;
}

} // namespace

class TestHeadAnalysis : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void knownBehaviours();
    void randomModels_data();
    void randomModels();
    void refusesTooShortContext();
};

void TestHeadAnalysis::knownBehaviours() {
    const int n = 10;
    const auto b = knownHeads(n);
    const auto prev = scoreHead(b, 0, 0, n), ind = scoreHead(b, 0, 1, n), first = scoreHead(b, 0, 2, n),
               uniform = scoreHead(b, 0, 3, n);
    QCOMPARE(prev.previousTokenScore, 1.0);
    QCOMPARE(prev.meanDistance, double(2 * n) / double(2 * n + 1)); // row 0 looks at itself
    QVERIFY(prev.inductionScore < 0.2);
    QCOMPARE(ind.inductionScore, 1.0);
    QVERIFY(ind.previousTokenScore < 0.2);
    QCOMPARE(first.firstTokenWeight, 1.0);
    QCOMPARE(first.entropyBits, 0.0);
    // Uniform rows: row q has entropy log2(q + 1); the induction key gets 1 / (q + 1).
    double entropy = 0.0, induction = 0.0;
    for (int q = 0; q <= 2 * n; ++q)
        entropy += std::log2(double(q + 1));
    for (int j = 0; j < n; ++j)
        induction += 1.0 / double(1 + n + j + 1);
    QVERIFY(std::abs(uniform.entropyBits - entropy / (2 * n + 1)) < 1e-5);
    QVERIFY(std::abs(uniform.inductionScore - induction / n) < 1e-6);
    QVERIFY(uniform.inductionScore < 0.1 && uniform.previousTokenScore < 0.2);
    // Chance is what the uniform head scores, and it does not stand out; the induction head does.
    QVERIFY(std::abs(inductionChance(n) - uniform.inductionScore) < 1e-6);
    QVERIFY(!inductionStandsOut(uniform.inductionScore, n));
    QVERIFY(inductionStandsOut(scoreHead(b, 0, 1, n).inductionScore, n));
}

void TestHeadAnalysis::randomModels_data() {
    QTest::addColumn<bool>("decoderOnly");
    QTest::newRow("decoder-only") << true;
    QTest::newRow("encoder-decoder") << false;
}

void TestHeadAnalysis::randomModels() {
    QFETCH(bool, decoderOnly);
    auto c = smallConfig(decoderOnly ? Architecture::DecoderOnly : Architecture::EncoderDecoder,
                         PositionalEncoding::Sinusoidal);
    c.maxLen = 40; // room for R = 19, less than asked
    const auto model = randomModel(c, 4);
    HeadAnalysisSettings settings;
    settings.repeatLength = 32;
    settings.sequences = 3;
    settings.seed = 7;
    const auto scores = analyzeHeads(*model, settings);
    QCOMPARE(int(scores.size()), c.decoderLayers * c.heads);
    for (std::size_t i = 0; i < scores.size(); ++i) {
        const auto& s = scores[i];
        QCOMPARE(s.layer * c.heads + s.head, int(i));
        for (double v : {s.firstTokenWeight, s.previousTokenScore, s.inductionScore})
            QVERIFY2(v >= 0.0 && v <= 1.0 + 1e-6, qPrintable(QString::number(v)));
        QVERIFY(s.entropyBits >= 0.0 && s.entropyBits <= std::log2(40.0));
        QVERIFY(s.meanDistance >= 0.0 && s.meanDistance < 39.0);
    }
    const auto again = analyzeHeads(*model, settings);
    QCOMPARE(again.front().inductionScore, scores.front().inductionScore);
    settings.seed = 8;
    QVERIFY(analyzeHeads(*model, settings).front().inductionScore != scores.front().inductionScore);
}

void TestHeadAnalysis::refusesTooShortContext() {
    auto c = smallConfig(Architecture::DecoderOnly, PositionalEncoding::Learned);
    c.maxLen = 4; // 1 + 2·R ≤ 4 leaves R = 1
    const auto model = randomModel(c, 1);
    try {
        analyzeHeads(*model, HeadAnalysisSettings{});
        QFAIL("a max_len of 4 was accepted");
    } catch (const InputError& e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("max_len 4")), e.what());
    }
}

QTEST_GUILESS_MAIN(TestHeadAnalysis)
#include "test_headanalysis.moc"
