// AttentionTiles on its own: the image size a block gets, max pooling of heads and of the mean over heads,
// and which changes recolour (the weights, a pooled size, the colours) and which do not (anything else).

#include "core/analysis/AttentionStats.h"
#include "ui/views/AttentionTiles.h"

#include <QElapsedTimer>
#include <QtTest>

#include <algorithm>
#include <random>

using core::AttentionBlock;
using ui::AttentionTiles;

namespace {

// 1 layer, 2 heads, queries × keys: head 0 rises cell by cell, (q · keys + k) / cells, so every bin has a
// different largest weight; head 1 is noise, so the mean is neither head.
AttentionBlock twoHeads(int queries, int keys) {
    AttentionBlock b;
    b.resize(1, 2, queries, keys);
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> noise(0.0f, 1.0f);
    const float cells = float(queries * keys);
    for (int q = 0; q < queries; ++q)
        for (int k = 0; k < keys; ++k) {
            b.data.mutableData()[b.index(0, 0, q, k)] = float(q * keys + k) / cells;
            b.data.mutableData()[b.index(0, 1, q, k)] = noise(rng);
        }
    return b;
}

} // namespace

class TestAttentionTiles : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void imageSize_data();
    void imageSize();
    void pooledValues_data();
    void pooledValues();
    void caching();
    void logScale();
    void poolingInSlices_data();
    void poolingInSlices();
};

void TestAttentionTiles::imageSize_data() {
    QTest::addColumn<int>("queries");
    QTest::addColumn<int>("keys");
    QTest::addColumn<QSize>("pixels");
    QTest::addColumn<QSize>("expected");
    QTest::newRow("fits") << 10 << 20 << QSize(80, 80) << QSize(20, 10);
    QTest::newRow("exactly") << 80 << 80 << QSize(80, 80) << QSize(80, 80);
    QTest::newRow("larger") << 1024 << 1024 << QSize(80, 80) << QSize(80, 80);
    QTest::newRow("tall") << 1024 << 12 << QSize(80, 60) << QSize(12, 60);
    QTest::newRow("wide") << 7 << 300 << QSize(80, 60) << QSize(80, 7);
    QTest::newRow("no layout yet") << 300 << 300 << QSize() << QSize(300, 300);
}

void TestAttentionTiles::imageSize() {
    QFETCH(int, queries);
    QFETCH(int, keys);
    QFETCH(QSize, pixels);
    QFETCH(QSize, expected);
    QCOMPARE(AttentionTiles::imageSize(queries, keys, pixels), expected);
}

void TestAttentionTiles::pooledValues_data() {
    QTest::addColumn<bool>("perHead");
    QTest::addColumn<bool>("causal");
    QTest::newRow("fixed") << false << false;
    QTest::newRow("per head") << true << false;
    // The upper triangle is not masked here, so leaving it out of the range shows.
    QTest::newRow("per head, causal") << true << true;
}

// Every pixel is the largest weight of its bin of queries and keys, coloured on the fixed or the head's own
// scale (core::informativeRange, from the full-resolution weights).
void TestAttentionTiles::pooledValues() {
    QFETCH(bool, perHead);
    QFETCH(bool, causal);
    constexpr int queries = 10, keys = 7, rows = 4, cols = 3; // bins of 2 or 3
    const AttentionBlock b = twoHeads(queries, keys);
    const auto map = ui::ColorMap::byName(QString());
    AttentionTiles tiles;
    tiles.setBlock(&b, causal);
    tiles.setPixelSize(QSize(cols, rows));
    tiles.setScaleMode(perHead ? ui::ScaleMode::PerHead : ui::ScaleMode::Fixed);
    const std::vector<float> mean = core::meanOverHeads(b, 0);
    for (int column = 0; column <= b.heads; ++column) {
        const QImage img = tiles.image(0, column);
        QCOMPARE(img.size(), QSize(cols, rows));
        const float* w = column == b.heads ? mean.data() : b.row(0, column, 0);
        const auto [lo, hi] =
            perHead ? core::informativeRange(w, queries, keys, causal) : std::pair(0.0f, 1.0f);
        const auto masked = AttentionTiles::maskedFrom(rows, cols, queries, keys);
        for (int y = 0; y < rows; ++y)
            for (int x = 0; x < cols; ++x) {
                if (causal && x >= masked[std::size_t(y)]) { // every key of the cell is in the future
                    QCOMPARE(img.pixel(x, y), map.maskedColor());
                    continue;
                }
                float largest = 0.0f;
                for (int q = y * queries / rows; q < (y + 1) * queries / rows; ++q)
                    for (int k = x * keys / cols; k < (x + 1) * keys / cols; ++k)
                        largest = std::max(largest, w[q * keys + k]);
                QCOMPARE(img.pixel(x, y), map.color(std::clamp((largest - lo) / (hi - lo), 0.0f, 1.0f)));
            }
    }
    QVERIFY(tiles.image(1, 0).isNull());
    QVERIFY(tiles.image(0, 3).isNull());
}

void TestAttentionTiles::logScale() {
    // One head's weights at whole decades: 1 is the top of the log scale, 10^-2 its middle, the floor
    // 10^-4 and anything below it the bottom.
    AttentionBlock b;
    b.resize(1, 1, 1, 5);
    const float weights[] = {1.0f, 1e-2f, 1e-3f, 1e-4f, 1e-6f};
    std::copy(std::begin(weights), std::end(weights), b.data.mutableData());
    AttentionTiles tiles;
    tiles.setBlock(&b, false);
    tiles.setPixelSize(QSize(40, 40));
    const auto map = ui::ColorMap::byName(QStringLiteral("viridis"));
    tiles.setColorMap(map);
    tiles.setScaleMode(ui::ScaleMode::Log);
    const QImage img = tiles.image(0, 0);
    const double expected[] = {1.0, 0.5, 0.25, 0.0, 0.0};
    for (int k = 0; k < 5; ++k)
        QCOMPARE(img.pixel(k, 0), map.color(expected[k]));
    // The fixed scale paints every weight but the first near its bottom.
    tiles.setScaleMode(ui::ScaleMode::Fixed);
    QCOMPARE(tiles.image(0, 0).pixel(1, 0), map.color(0.01));
}

void TestAttentionTiles::caching() {
    const AttentionBlock small = twoHeads(6, 6);
    AttentionTiles tiles;
    tiles.setBlock(&small, false);
    tiles.setPixelSize(QSize(40, 40));
    const qint64 first = tiles.image(0, 1).cacheKey();
    QCOMPARE(tiles.image(0, 1).cacheKey(), first);
    // A block that fits keeps its image whatever the tile's size.
    tiles.setPixelSize(QSize(90, 90));
    QCOMPARE(tiles.image(0, 1).cacheKey(), first);
    // The colours are redone; the weights need not be pooled again, but the image is new.
    tiles.setColorMap(ui::ColorMap::byName(QStringLiteral("greys")));
    const QImage grey = tiles.image(0, 1);
    QVERIFY(grey.cacheKey() != first);
    QCOMPARE(grey.pixel(0, 0), ui::ColorMap::byName(QStringLiteral("greys")).color(small.at(0, 1, 0, 0)));
    tiles.setScaleMode(ui::ScaleMode::PerHead);
    QVERIFY(tiles.image(0, 1).cacheKey() != grey.cacheKey());
    tiles.setScaleMode(ui::ScaleMode::Fixed);

    // Shrinking below the block pools it again, at the new size.
    tiles.setPixelSize(QSize(4, 5));
    QCOMPARE(tiles.image(0, 1).size(), QSize(4, 5));
    const qint64 pooled = tiles.image(0, 1).cacheKey();
    QCOMPARE(tiles.image(0, 1).cacheKey(), pooled);
    tiles.setPixelSize(QSize(3, 3));
    QCOMPARE(tiles.image(0, 1).size(), QSize(3, 3));

    // Another block of the same shape: new images.
    const AttentionBlock other = twoHeads(6, 6);
    tiles.setBlock(&other, false);
    QVERIFY(tiles.image(0, 1).cacheKey() != pooled);
    tiles.setBlock(nullptr, false);
    QVERIFY(tiles.image(0, 0).isNull());
}

void TestAttentionTiles::poolingInSlices_data() {
    QTest::addColumn<bool>("compact");
    QTest::addColumn<bool>("perHead");
    QTest::newRow("dense") << false << false;
    QTest::newRow("dense, per head") << false << true;
    QTest::newRow("compact causal") << true << false;
    QTest::newRow("compact causal, per head") << true << true;
}

// A layer pooled a pixel row per call (the grid's paints with their time budget) gives exactly the images of
// one full pooling, for dense blocks and for compact causal ones whose masked keys are not stored.
void TestAttentionTiles::poolingInSlices() {
    QFETCH(bool, compact);
    QFETCH(bool, perHead);
    const int layers = 2, heads = 3, t = 300;
    AttentionBlock::setDenseLimit(compact ? 0 : AttentionBlock::kDenseUpToBytes);
    AttentionBlock b;
    b.causal = true;
    b.allocate(layers, heads, t, t);
    AttentionBlock::setDenseLimit(AttentionBlock::kDenseUpToBytes);
    QCOMPARE(b.compact(), compact);
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    std::vector<float> row(static_cast<std::size_t>(t));
    for (int l = 0; l < layers; ++l)
        for (int h = 0; h < heads; ++h)
            for (int q = 0; q < t; ++q) {
                float sum = 0.0f;
                for (int k = 0; k <= q; ++k)
                    sum += row[std::size_t(k)] = u(rng) * u(rng);
                for (int k = 0; k < t; ++k)
                    row[std::size_t(k)] = k <= q ? row[std::size_t(k)] / sum : 0.0f;
                b.setRow(l, h, q, row.data(), t);
            }
    const auto mode = perHead ? ui::ScaleMode::PerHead : ui::ScaleMode::Fixed;
    AttentionTiles whole, sliced;
    for (auto* tiles : {&whole, &sliced}) {
        tiles->setBlock(&b, true);
        tiles->setPixelSize(QSize(37, 41)); // bins of 7 and 8 cells
        tiles->setScaleMode(mode);
    }
    QElapsedTimer clock;
    clock.start();
    for (int l = 0; l < layers; ++l) {
        int calls = 1;
        while (!sliced.poolFor(l, clock, 0)) // a budget already spent: one pixel row per call
            ++calls;
        QCOMPARE(calls, 41);
        QVERIFY(sliced.isPooled(l));
        for (int c = 0; c <= heads; ++c)
            QCOMPARE(sliced.image(l, c), whole.image(l, c));
    }
}

QTEST_GUILESS_MAIN(TestAttentionTiles)
#include "test_attentiontiles.moc"
