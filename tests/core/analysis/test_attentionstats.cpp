// AttentionStats against hand-computed values and invariants: entropy in bits, distance, argmax, the mean
// over heads.

#include "core/analysis/AttentionStats.h"

#include <QtTest>

#include <cmath>
#include <vector>

using namespace core;

namespace {

// One [query][key] matrix per head, stacked into a single-layer block.
AttentionBlock blockOf(int queries, int keys, const std::vector<std::vector<float>>& heads) {
    AttentionBlock b;
    b.resize(1, static_cast<int>(heads.size()), queries, keys);
    for (int h = 0; h < b.heads; ++h)
        for (int q = 0; q < queries; ++q)
            for (int k = 0; k < keys; ++k)
                b.data.mutableData()[b.index(0, h, q, k)] =
                    heads[static_cast<std::size_t>(h)][static_cast<std::size_t>(q * keys + k)];
    return b;
}

} // namespace

class TestAttentionStats : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void matrix_data();
    void matrix();
    void causalMatrix();
    void meanOverHeadsByHand();
    void meanHeadStats();
    void emptyInputs();
    void informativeRange_data();
    void informativeRange();
};

void TestAttentionStats::matrix_data() {
    QTest::addColumn<int>("queries");
    QTest::addColumn<int>("keys");
    QTest::addColumn<std::vector<float>>("weights");
    QTest::addColumn<double>("entropy");
    QTest::addColumn<double>("rowMax");
    QTest::addColumn<double>("minW");
    QTest::addColumn<double>("maxW");
    QTest::addColumn<double>("distance");
    QTest::addColumn<std::vector<int>>("argmax");

    // Uniform rows over n keys have entropy log2(n); distance of row q is mean |q−k| over k.
    QTest::newRow("uniform 4x4") << 4 << 4 << std::vector<float>(16, 0.25f) << 2.0 << 0.25 << 0.25 << 0.25
                                 << (1.5 + 1.0 + 1.0 + 1.5) / 4 << std::vector<int>{0, 0, 0, 0};
    QTest::newRow("uniform 1x8") << 1 << 8 << std::vector<float>(8, 0.125f) << 3.0 << 0.125 << 0.125 << 0.125
                                 << 28.0 / 8 << std::vector<int>{0};
    // One-hot on the diagonal: no uncertainty, no distance.
    QTest::newRow("identity 3x3") << 3 << 3 << std::vector<float>{1, 0, 0, 0, 1, 0, 0, 0, 1} << 0.0 << 1.0
                                  << 0.0 << 1.0 << 0.0 << std::vector<int>{0, 1, 2};
    // One-hot on the first key: row q looks q tokens back.
    QTest::newRow("first key 3x3") << 3 << 3 << std::vector<float>{1, 0, 0, 1, 0, 0, 1, 0, 0} << 0.0 << 1.0
                                   << 0.0 << 1.0 << (0.0 + 1.0 + 2.0) / 3 << std::vector<int>{0, 0, 0};
    // Row 0: (0.5, 0.5) → 1 bit, distance 0.5; row 1: (0.25, 0.75) → 0.811278 bits, distance 0.25.
    QTest::newRow("two by two") << 2 << 2 << std::vector<float>{0.5f, 0.5f, 0.25f, 0.75f}
                                << (1.0 + 0.8112781244591328) / 2 << (0.5 + 0.75) / 2 << 0.25 << 0.75
                                << (0.5 + 0.25) / 2 << std::vector<int>{0, 1};
    // Non-square (cross-attention shape): 2 queries over 3 keys.
    QTest::newRow("cross 2x3") << 2 << 3 << std::vector<float>{0.0f, 0.0f, 1.0f, 0.5f, 0.25f, 0.25f}
                               << (0.0 + 1.5) / 2 << (1.0 + 0.5) / 2 << 0.0 << 1.0
                               << (2.0 + (0.5 * 1 + 0.25 * 0 + 0.25 * 1)) / 2 << std::vector<int>{2, 0};
}

void TestAttentionStats::matrix() {
    QFETCH(int, queries);
    QFETCH(int, keys);
    QFETCH(std::vector<float>, weights);
    QFETCH(double, entropy);
    QFETCH(double, rowMax);
    QFETCH(double, minW);
    QFETCH(double, maxW);
    QFETCH(double, distance);
    QFETCH(std::vector<int>, argmax);
    QCOMPARE(weights.size(), std::size_t(queries * keys));

    const HeadStats s = headStats(weights.data(), queries, keys);
    QVERIFY2(std::abs(s.meanEntropyBits - entropy) < 1e-6, qPrintable(QString::number(s.meanEntropyBits)));
    QVERIFY2(std::abs(s.meanRowMax - rowMax) < 1e-6, qPrintable(QString::number(s.meanRowMax)));
    QCOMPARE(double(s.minWeight), minW);
    QCOMPARE(double(s.maxWeight), maxW);
    QVERIFY2(std::abs(s.meanDistance - distance) < 1e-6, qPrintable(QString::number(s.meanDistance)));
    QCOMPARE(s.argmaxKey, argmax);

    // The same matrix through a block gives the same numbers.
    const auto b = blockOf(queries, keys, {weights});
    const HeadStats viaBlock = headStats(b, 0, 0);
    QCOMPARE(viaBlock.meanEntropyBits, s.meanEntropyBits);
    QCOMPARE(viaBlock.argmaxKey, s.argmaxKey);

    // Invariants of any probability matrix.
    QVERIFY(s.meanEntropyBits >= 0.0 && s.meanEntropyBits <= std::log2(keys) + 1e-9);
    QVERIFY(s.minWeight <= s.meanRowMax + 1e-9 && s.meanRowMax <= s.maxWeight + 1e-9);
    QVERIFY(s.meanDistance >= 0.0 && s.meanDistance <= std::max(queries, keys) - 1);
}

void TestAttentionStats::causalMatrix() {
    // Row q of a causal uniform matrix spreads over q+1 keys: entropy log2(q+1), distance q/2.
    const int n = 5;
    std::vector<float> w(n * n, 0.0f);
    double entropy = 0.0, distance = 0.0;
    for (int q = 0; q < n; ++q) {
        for (int k = 0; k <= q; ++k)
            w[q * n + k] = 1.0f / static_cast<float>(q + 1);
        entropy += std::log2(q + 1.0);
        distance += q / 2.0;
    }
    const auto s = headStats(w.data(), n, n);
    QVERIFY(std::abs(s.meanEntropyBits - entropy / n) < 1e-6);
    QVERIFY(std::abs(s.meanDistance - distance / n) < 1e-6);
    QCOMPARE(s.minWeight, 0.0f);
    QCOMPARE(s.maxWeight, 1.0f); // row 0, which sees only key 0
    // Past the first row the largest weight is row 1's 1/2: a maximum that tells heads apart.
    QCOMPARE(s.maxWeightPastFirstRow, 0.5f);
    QCOMPARE(headStats(w.data(), 1, n).maxWeightPastFirstRow, 0.0f); // one row: nothing past it
    // Rows 1 … n − 1 give key 0 and key q − 1 each 1 / (q + 1).
    double share = 0.0;
    for (int q = 1; q < n; ++q)
        share += 1.0 / (q + 1.0);
    QVERIFY(std::abs(s.firstTokenWeight - share / (n - 1)) < 1e-6);
    QVERIFY(std::abs(s.previousTokenScore - share / (n - 1)) < 1e-6);

    // A pure previous-token head (row 0 on itself) and a pure first-token head.
    std::vector<float> prev(n * n, 0.0f), first(n * n, 0.0f);
    for (int q = 0; q < n; ++q) {
        prev[q * n + std::max(0, q - 1)] = 1.0f;
        first[q * n] = 1.0f;
    }
    const auto p = headStats(prev.data(), n, n), f = headStats(first.data(), n, n);
    QCOMPARE(p.previousTokenScore, 1.0);
    QCOMPARE(p.firstTokenWeight, 1.0 / (n - 1)); // only row 1's previous token is the first
    QCOMPARE(f.firstTokenWeight, 1.0);
    QCOMPARE(f.previousTokenScore, 1.0 / (n - 1));
}

void TestAttentionStats::meanOverHeadsByHand() {
    const auto b =
        blockOf(2, 2, {{1.0f, 0.0f, 0.5f, 0.5f}, {0.0f, 1.0f, 0.25f, 0.75f}, {0.5f, 0.5f, 0.0f, 1.0f}});
    const auto m = meanOverHeads(b, 0);
    const std::vector<float> expected{0.5f, 0.5f, 0.25f, 0.75f};
    QCOMPARE(m.size(), expected.size());
    for (std::size_t i = 0; i < m.size(); ++i)
        QVERIFY2(std::abs(m[i] - expected[i]) < 1e-7f, qPrintable(QString::number(i)));
    QVERIFY(meanOverHeads(b, 1).empty());
    QVERIFY(meanOverHeads(b, -1).empty());
}

void TestAttentionStats::meanHeadStats() {
    // The mean of two one-hot heads is a two-way split: 1 bit per row.
    const auto b = blockOf(2, 2, {{1.0f, 0.0f, 0.0f, 1.0f}, {0.0f, 1.0f, 1.0f, 0.0f}});
    const auto s = headStats(b, 0, kMeanHead);
    QVERIFY(std::abs(s.meanEntropyBits - 1.0) < 1e-6);
    QCOMPARE(s.maxWeight, 0.5f);
    QCOMPARE(headStats(b, 0, 0).meanEntropyBits, 0.0);
}

void TestAttentionStats::emptyInputs() {
    const auto s = headStats(nullptr, 0, 0);
    QCOMPARE(s.meanEntropyBits, 0.0);
    QVERIFY(s.argmaxKey.empty());
    const AttentionBlock empty;
    QVERIFY(meanOverHeads(empty, 0).empty());
    QVERIFY(headStats(empty, 0, 0).argmaxKey.empty());
    const auto b = blockOf(1, 2, {{0.5f, 0.5f}});
    QVERIFY(headStats(b, 0, 1).argmaxKey.empty()); // head out of range
    QVERIFY(headStats(b, 0, -2).argmaxKey.empty());
}

void TestAttentionStats::informativeRange_data() {
    QTest::addColumn<int>("queries");
    QTest::addColumn<int>("keys");
    QTest::addColumn<bool>("causal");
    QTest::addColumn<std::vector<float>>("weights");
    QTest::addColumn<double>("lo");
    QTest::addColumn<double>("hi");
    const std::vector<float> causal3{1.0f, 0.0f, 0.0f, 0.3f, 0.7f, 0.0f, 0.2f, 0.3f, 0.5f};
    QTest::newRow("causal: no first row, no mask") << 3 << 3 << true << causal3 << 0.2 << 0.7;
    QTest::newRow("same numbers, not causal") << 3 << 3 << false << causal3 << 0.0 << 1.0;
    QTest::newRow("causal, one query: plain range")
        << 1 << 1 << true << std::vector<float>{1.0f} << 1.0 << 1.0;
    QTest::newRow("one key: plain range") << 2 << 1 << false << std::vector<float>{1.0f, 1.0f} << 1.0 << 1.0;
    QTest::newRow("cross-like") << 2 << 2 << false << std::vector<float>{0.4f, 0.6f, 0.1f, 0.9f} << 0.1
                                << 0.9;
}

void TestAttentionStats::informativeRange() {
    QFETCH(int, queries);
    QFETCH(int, keys);
    QFETCH(bool, causal);
    QFETCH(std::vector<float>, weights);
    QFETCH(double, lo);
    QFETCH(double, hi);
    const auto r = core::informativeRange(weights.data(), queries, keys, causal);
    QCOMPARE(r.first, static_cast<float>(lo));
    QCOMPARE(r.second, static_cast<float>(hi));
}

QTEST_APPLESS_MAIN(TestAttentionStats)
#include "test_attentionstats.moc"
