// Compact attention storage (float16, causal rows without their masked keys) against the dense float32
// it replaces for long inputs, and the prompt fed in one pass against one token at a time.

#include "tests/support/TestModels.h"

#include "core/analysis/AttentionStats.h"
#include "core/base/Float16.h"
#include "core/run/Analyze.h"
#include "core/run/IncrementalDecoder.h"
#include "core/run/Session.h"

#include <QtTest>

#include <algorithm>
#include <cmath>

using namespace core;

Q_DECLARE_METATYPE(core::Architecture)

namespace {

// float16 keeps 11 significant bits: a relative error of at most 2^-11 after rounding, and below its
// smallest normal (6.1e-5) an absolute error of at most half its smallest subnormal step (3e-8).
bool halfClose(float dense, float compact) {
    return std::abs(dense - compact) <= std::abs(dense) * std::ldexp(1.0f, -11) + 3e-8f;
}

// Compares every cell, row and head read of a compact block with the dense block of the same run.
void compareBlocks(const AttentionBlock& dense, const AttentionBlock& compact) {
    QVERIFY(!dense.compact());
    QVERIFY(compact.compact());
    QCOMPARE(compact.layers, dense.layers);
    QCOMPARE(compact.heads, dense.heads);
    QCOMPARE(compact.queries, dense.queries);
    QCOMPARE(compact.keys, dense.keys);
    std::vector<float> rowScratch, headScratch;
    int mismatches = 0;
    for (int l = 0; l < dense.layers; ++l)
        for (int h = 0; h < dense.heads; ++h) {
            const float* head = compact.head(l, h, headScratch);
            for (int q = 0; q < dense.queries; ++q) {
                const float* row = compact.row(l, h, q, rowScratch);
                for (int k = 0; k < dense.keys; ++k) {
                    const float want = dense.at(l, h, q, k);
                    const float got = compact.at(l, h, q, k);
                    // The same run twice gives the same floats, so the compact cell is the dense one rounded
                    // to nearest float16.
                    if (!halfClose(want, got) || got != halfToFloat(floatToHalf(want)) || row[k] != got ||
                        head[std::size_t(q) * std::size_t(dense.keys) + std::size_t(k)] != got)
                        ++mismatches;
                }
            }
        }
    QCOMPARE(mismatches, 0);
}

} // namespace

class TestAttentionBlock : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void cleanup() { AttentionBlock::setDenseLimit(AttentionBlock::kDenseUpToBytes); }
    void smallBlocksStayDense();
    void compactMatchesDense_data();
    void compactMatchesDense();
    void triangularLayout();
    void copiesShareCompactStorage();
    void promptInOnePassEqualsSteps_data();
    void promptInOnePassEqualsSteps();
    void steppingAfterACompactPrompt();
};

void TestAttentionBlock::smallBlocksStayDense() {
    const auto model = randomModel(smallConfig(Architecture::EncoderDecoder, PositionalEncoding::Sinusoidal));
    const auto snap = core::analyze(*model, {1, 5, 6, 7, 2}, {1, 8, 9, 10});
    for (const auto* b : {&snap.encoder, &snap.decoder, &snap.cross}) {
        QVERIFY(!b->empty());
        QVERIFY(!b->compact());
        QCOMPARE(b->bytes(), b->data.size() * sizeof(float));
    }
    // The limit is what decides: one byte over it is compact.
    QVERIFY(!AttentionBlock::wantsCompact(1, 1, 8192, 8192)); // exactly 256 MiB
    QVERIFY(AttentionBlock::wantsCompact(1, 1, 8192, 8193));
}

void TestAttentionBlock::compactMatchesDense_data() {
    QTest::addColumn<Architecture>("arch");
    QTest::addColumn<int>("steps");
    QTest::newRow("encoder-decoder") << Architecture::EncoderDecoder << 20;
    QTest::newRow("decoder-only") << Architecture::DecoderOnly << 20;
    // 4 heads x 300 x 300 float32 is over FloatPool::kMinBytes: the probabilities come from the pool
    // before they are converted, the path long inputs take.
    QTest::newRow("decoder-only, pooled scratch") << Architecture::DecoderOnly << 300;
}

void TestAttentionBlock::compactMatchesDense() {
    QFETCH(Architecture, arch);
    QFETCH(int, steps);
    auto config = smallConfig(arch, PositionalEncoding::Sinusoidal);
    config.maxLen = std::max(config.maxLen, steps + 1);
    const auto model = randomModel(config, 3);
    const std::vector<int64_t> src{1, 5, 6, 7, 8, 9, 10, 11, 2};
    std::vector<int64_t> tgt{1};
    for (int i = 0; i < steps; ++i)
        tgt.push_back(4 + (i * 7) % 30);
    const auto dense = core::analyze(*model, src, tgt);
    AttentionBlock::setDenseLimit(0); // every block compact
    const auto compact = core::analyze(*model, src, tgt);
    if (arch == Architecture::EncoderDecoder) {
        compareBlocks(dense.encoder, compact.encoder);
        compareBlocks(dense.cross, compact.cross);
        QVERIFY(!compact.cross.triangular);
        QCOMPARE(compact.cross.bytes(), dense.cross.bytes() / 2);
    }
    compareBlocks(dense.decoder, compact.decoder);
    // The masked half is not stored: T (T + 1) / 2 float16 cells per head instead of T² float32.
    const std::size_t t = tgt.size();
    QVERIFY(compact.decoder.triangular);
    QCOMPARE(compact.decoder.bytes(), std::size_t(compact.decoder.layers * compact.decoder.heads) * t *
                                          (t + 1) / 2 * sizeof(std::uint16_t));
    // What the views compute from a block agrees too.
    const auto ds = headStats(dense.decoder, 1, 2), cs = headStats(compact.decoder, 1, 2);
    QVERIFY(std::abs(ds.meanEntropyBits - cs.meanEntropyBits) < 1e-3);
    // Over 300 keys near-equal weights round to the same float16 and the first of them wins the argmax.
    if (steps <= 20)
        QCOMPARE(cs.argmaxKey, ds.argmaxKey);
    const auto dm = meanOverHeads(dense.decoder, 0), cm = meanOverHeads(compact.decoder, 0);
    QCOMPARE(cm.size(), dm.size());
    for (std::size_t i = 0; i < dm.size(); ++i)
        QVERIFY2(halfClose(dm[i], cm[i]), qPrintable(QString::number(i)));
}

void TestAttentionBlock::triangularLayout() {
    // Written row by row (as a session assembles steps), read back through every accessor.
    AttentionBlock::setDenseLimit(0);
    AttentionBlock b;
    b.causal = true;
    b.allocate(2, 3, 4, 6); // 4 queries over 6 keys: row q sees keys 0 … q + 2
    QVERIFY(b.compact() && b.triangular);
    QCOMPARE(b.storedKeys(0), 3);
    QCOMPARE(b.storedKeys(3), 6);
    QCOMPARE(b.bytes(), std::size_t(2 * 3 * (3 + 4 + 5 + 6)) * sizeof(std::uint16_t));
    std::vector<float> row(6);
    for (int l = 0; l < 2; ++l)
        for (int h = 0; h < 3; ++h)
            for (int q = 0; q < 4; ++q) {
                for (int k = 0; k < 6; ++k)
                    row[std::size_t(k)] = float(1 + l * 100 + h * 10 + q) / float(k + 1) / 1000.0f;
                b.setRow(l, h, q, row.data(), 6); // the masked keys are dropped
            }
    std::vector<float> scratch;
    for (int l = 0; l < 2; ++l)
        for (int h = 0; h < 3; ++h)
            for (int q = 0; q < 4; ++q) {
                const float* r = b.row(l, h, q, scratch);
                for (int k = 0; k < 6; ++k) {
                    const float want =
                        k <= q + 2 ? float(1 + l * 100 + h * 10 + q) / float(k + 1) / 1000.0f : 0.0f;
                    QVERIFY2(halfClose(want, r[k]) && b.at(l, h, q, k) == r[k],
                             qPrintable(QStringLiteral("%1 %2 %3 %4").arg(l).arg(h).arg(q).arg(k)));
                }
            }
}

void TestAttentionBlock::copiesShareCompactStorage() {
    AttentionBlock::setDenseLimit(0);
    AttentionBlock a;
    a.allocate(1, 1, 2, 2);
    const float ones[2] = {1.0f, 1.0f};
    a.setRow(0, 0, 0, ones, 2);
    AttentionBlock b = a;
    QCOMPARE(b.halfData(), a.halfData()); // shared, not copied
    const float halves[2] = {0.5f, 0.5f};
    b.setRow(0, 0, 0, halves, 2); // the writer gets its own copy; the other block is unchanged
    QVERIFY(b.halfData() != a.halfData());
    QCOMPARE(a.at(0, 0, 0, 0), 1.0f);
    QCOMPARE(b.at(0, 0, 0, 0), 0.5f);
}

void TestAttentionBlock::promptInOnePassEqualsSteps_data() {
    compactMatchesDense_data();
}

void TestAttentionBlock::promptInOnePassEqualsSteps() {
    QFETCH(Architecture, arch);
    const auto model = randomModel(smallConfig(arch, PositionalEncoding::Rope), 5);
    const std::vector<int64_t> src{1, 5, 6, 7, 8, 2};
    std::vector<int64_t> prefix{1};
    for (int i = 0; i < 15; ++i)
        prefix.push_back(4 + (i * 11) % 30);
    IncrementalDecoder oneByOne(model, src), atOnce(model, src);
    IncrementalDecoder::Step last;
    for (auto id : prefix)
        last = oneByOne.push(id);
    const auto all = atOnce.push(prefix);
    QCOMPARE(atOnce.length(), oneByOne.length());
    QCOMPARE(all.selfRows.queries, int(prefix.size()));
    double worst = 0.0;
    for (std::size_t i = 0; i < all.logProbs.size(); ++i)
        worst = std::max(worst, double(std::abs(all.logProbs[i] - last.logProbs[i])));
    const int q = int(prefix.size()) - 1; // the last row of the pass is the last single step's row
    for (int l = 0; l < all.selfRows.layers; ++l)
        for (int h = 0; h < all.selfRows.heads; ++h) {
            for (int k = 0; k <= q; ++k)
                worst = std::max(
                    worst, double(std::abs(all.selfRows.at(l, h, q, k) - last.selfRows.at(l, h, 0, k))));
            for (int k = 0; k < all.crossRows.keys; ++k)
                worst = std::max(
                    worst, double(std::abs(all.crossRows.at(l, h, q, k) - last.crossRows.at(l, h, 0, k))));
        }
    QVERIFY2(worst < 1e-4, qPrintable(QString::number(worst)));
    // Both decoders continue alike from there.
    const auto a = oneByOne.push(7), b = atOnce.push(7);
    for (std::size_t i = 0; i < a.logProbs.size(); ++i)
        QVERIFY(std::abs(a.logProbs[i] - b.logProbs[i]) < 1e-4);
}

void TestAttentionBlock::steppingAfterACompactPrompt() {
    // A session's snapshot after stepping past a compact prompt: the prompt's rows and each step's row.
    auto c = smallConfig(Architecture::DecoderOnly, PositionalEncoding::Learned);
    const auto model = randomModel(c, 9);
    std::vector<int64_t> prompt{1};
    for (int i = 0; i < 12; ++i)
        prompt.push_back(4 + (i * 5) % 30);
    Session dense(model);
    dense.analyzeIds(prompt, {});
    AttentionBlock::setDenseLimit(0);
    Session compact(model);
    compact.analyzeIds(prompt, {});
    QVERIFY(compact.snapshot().decoder.compact());
    for (int i = 0; i < 3; ++i) {
        dense.force(6 + i);
        compact.force(6 + i);
    }
    const auto s = compact.snapshot();
    AttentionBlock::setDenseLimit(AttentionBlock::kDenseUpToBytes);
    const auto d = dense.snapshot();
    QCOMPARE(s.decoder.queries, int(prompt.size()) + 3);
    QVERIFY(s.decoder.triangular);
    QVERIFY(!d.decoder.compact());
    compareBlocks(d.decoder, s.decoder);
}

QTEST_GUILESS_MAIN(TestAttentionBlock)
#include "test_attentionblock.moc"
