// core::MaxPool without widgets: the bins (never empty, widths within one cell of each other, one cell each
// when the side fits), and pooled matrices against a brute-force maximum over each bin.

#include "core/analysis/MaxPool.h"

#include <QtTest>

#include <algorithm>
#include <random>
#include <vector>

namespace {

// A queries × keys matrix of non-negative weights, a few of them strong and alone, as attention has.
std::vector<float> randomMatrix(int queries, int keys, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> weight(0.0f, 0.01f);
    std::vector<float> m(std::size_t(queries) * std::size_t(keys));
    for (auto& w : m)
        w = weight(rng);
    std::uniform_int_distribution<std::size_t> cell(0, m.size() - 1);
    for (int i = 0; i < 5; ++i)
        m[cell(rng)] = 1.0f;
    return m;
}

// The largest weight of query bin r × key bin c, by a plain loop over the bin's cells.
float bruteMax(const std::vector<float>& m, int queries, int keys, int rows, int cols, int r, int c) {
    float best = -1.0f;
    for (int q = queries * r / rows; q < queries * (r + 1) / rows; ++q)
        for (int k = keys * c / cols; k < keys * (c + 1) / cols; ++k)
            best = std::max(best, m[std::size_t(q) * std::size_t(keys) + std::size_t(k)]);
    return best;
}

std::vector<float> pooled(const std::vector<float>& m, int queries, int keys, int rows, int cols) {
    std::vector<float> out(std::size_t(rows) * std::size_t(cols), -2.0f);
    core::maxPool(
        queries, keys, [&](int q) { return m.data() + std::size_t(q) * std::size_t(keys); }, rows, cols,
        out.data());
    return out;
}

} // namespace

class TestMaxPool : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void pooledLength();
    void bins_data();
    void bins();
    void identity();
    void bruteForce_data();
    void bruteForce();
    void compactRows();
};

void TestMaxPool::pooledLength() {
    QCOMPARE(core::pooledLength(10, 640), 10);
    QCOMPARE(core::pooledLength(640, 640), 640);
    QCOMPARE(core::pooledLength(641, 640), 640);
    QCOMPARE(core::pooledLength(2048, 640), 640);
    QCOMPARE(core::pooledLength(2048, 0), 2048); // no limit yet (a tile before its first layout)
}

void TestMaxPool::bins_data() {
    QTest::addColumn<int>("cells");
    QTest::addColumn<int>("n");
    for (const auto& [cells, n] : std::vector<std::pair<int, int>>{
             {1, 1}, {7, 1}, {5, 3}, {3, 3}, {100, 7}, {641, 640}, {1000, 640}, {2048, 640}, {2047, 56}})
        QTest::addRow("%d into %d", cells, n) << cells << n;
}

void TestMaxPool::bins() {
    QFETCH(int, cells);
    QFETCH(int, n);
    QCOMPARE(core::binStart(0, n, cells), 0);
    QCOMPARE(core::binStart(n, n, cells), cells);
    int narrowest = cells, widest = 0;
    for (int i = 0; i < n; ++i) {
        const int width = core::binStart(i + 1, n, cells) - core::binStart(i, n, cells);
        QVERIFY2(width >= 1, qPrintable(QStringLiteral("bin %1 is empty").arg(i)));
        narrowest = std::min(narrowest, width);
        widest = std::max(widest, width);
    }
    QVERIFY2(widest - narrowest <= 1,
             qPrintable(QStringLiteral("widths %1 to %2").arg(narrowest).arg(widest)));
    // The same bins in one row of values: each bin's largest value, and every value in some bin.
    std::vector<float> row(static_cast<std::size_t>(cells));
    for (int k = 0; k < cells; ++k)
        row[std::size_t(k)] = float((k * 37) % 101);
    std::vector<float> out(static_cast<std::size_t>(n));
    core::maxPoolRow(row.data(), cells, n, out.data());
    for (int i = 0; i < n; ++i)
        QCOMPARE(out[std::size_t(i)], *std::max_element(row.begin() + core::binStart(i, n, cells),
                                                        row.begin() + core::binStart(i + 1, n, cells)));
    QCOMPARE(*std::max_element(out.begin(), out.end()), *std::max_element(row.begin(), row.end()));
}

void TestMaxPool::identity() {
    // A matrix that fits is shown as it is, weight for weight.
    const auto m = randomMatrix(13, 29, 1);
    QCOMPARE(pooled(m, 13, 29, 13, 29), m);
}

void TestMaxPool::bruteForce_data() {
    QTest::addColumn<int>("queries");
    QTest::addColumn<int>("keys");
    QTest::addColumn<int>("rows");
    QTest::addColumn<int>("cols");
    QTest::newRow("both sides") << 53 << 97 << 11 << 20;
    QTest::newRow("keys only") << 9 << 100 << 9 << 33;
    QTest::newRow("queries only") << 100 << 9 << 33 << 9;
    QTest::newRow("to one cell") << 17 << 23 << 1 << 1;
    QTest::newRow("past the heatmap's 640") << 700 << 1000 << 640 << 640;
}

void TestMaxPool::bruteForce() {
    QFETCH(int, queries);
    QFETCH(int, keys);
    QFETCH(int, rows);
    QFETCH(int, cols);
    const auto m = randomMatrix(queries, keys, unsigned(queries * 31 + keys));
    const auto out = pooled(m, queries, keys, rows, cols);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
            QCOMPARE(out[std::size_t(r) * std::size_t(cols) + std::size_t(c)],
                     bruteMax(m, queries, keys, rows, cols, r, c));
    // The strong weights survive pooling at full strength.
    QVERIFY(std::count(out.begin(), out.end(), 1.0f) > 0);
}

void TestMaxPool::compactRows() {
    // A row accessor may hand out one scratch buffer for every row, as a compact block's expansion does.
    const int queries = 40, keys = 30;
    const auto m = randomMatrix(queries, keys, 5);
    std::vector<float> scratch;
    std::vector<float> out(std::size_t(7) * std::size_t(6));
    core::maxPool(
        queries, keys,
        [&](int q) {
            scratch.assign(m.begin() + std::ptrdiff_t(q) * keys, m.begin() + std::ptrdiff_t(q + 1) * keys);
            return scratch.data();
        },
        7, 6, out.data());
    QCOMPARE(out, pooled(m, queries, keys, 7, 6));
}

QTEST_MAIN(TestMaxPool)
#include "test_maxpool.moc"
