// AttentionGrid's pixels, offscreen: tiles coloured at the fixed and the per-head scale, one pixel per weight
// for short inputs, max pooling to the tile's device pixels for long ones (again after a resize settles), and
// the paint time of a 12 × 12 grid (printed, not asserted). Run again at device pixel ratio 2 by ctest.

#include "core/analysis/AttentionStats.h"
#include "core/analysis/MaxPool.h"
#include "tests/support/GridTestHelpers.h"
#include "ui/views/AttentionGrid.h"

#include <QElapsedTimer>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <random>

using namespace core;
using ui::AttentionGrid;

Q_DECLARE_METATYPE(core::AttentionKind)

namespace {

// Where a grab of the grid differs from maxPooled()'s heads 0 (the diagonal) and 2 (one key for every
// query) max-pooled into its tiles' device pixels; empty when it does not.
QString poolingMismatch(AttentionGrid& grid, int cells, int strongKey, QRgb one, QRgb zero) {
    const QImage img = grid.grab().toImage();
    const QImage diagonal = tilePixels(img, grid.tileRect(0, 0));
    const QImage column = tilePixels(img, grid.tileRect(0, 2));
    const int side = diagonal.width();
    int strongPixel = 0;
    while (binStart(strongPixel + 1, side, cells) <= strongKey)
        ++strongPixel;
    for (int y = 0; y < side; ++y)
        for (int x = 0; x < side; ++x) {
            if (diagonal.pixel(x, y) != (x == y ? one : zero))
                return QStringLiteral("diagonal tile, pixel %1, %2 of %3").arg(x).arg(y).arg(side);
            if (column.pixel(x, y) != (x == strongPixel ? one : zero))
                return QStringLiteral("strong-key tile, pixel %1, %2 of %3").arg(x).arg(y).arg(side);
        }
    return {};
}

} // namespace

class TestGridPixels : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void scaleModes_data();
    void scaleModes();
    void onePixelPerWeight();
    void maxPooled();
    void paintTime_data();
    void paintTime();
};

void TestGridPixels::scaleModes_data() {
    QTest::addColumn<AttentionKind>("kind");
    QTest::newRow("encoder") << AttentionKind::Encoder;
    // Causal: the masked cells and the first row (one key, weight 1) stay out of a head's range.
    QTest::newRow("decoder") << AttentionKind::Decoder;
}

void TestGridPixels::scaleModes() {
    QFETCH(AttentionKind, kind);
    AttentionGrid grid;
    grid.resize(900, 700);
    const auto snap = gridSnapshot(2, 3, 6, 5);
    const auto map = ui::ColorMap::byName(QStringLiteral("viridis"));
    ui::ShownAttention shown{snap, kind};
    shown.colorMap = map;
    grid.setShown(shown);
    const auto& b = snap->block(kind);
    const int layer = 1;
    const QImage fixed = grid.grab().toImage();
    shown.scale = ui::ScaleMode::PerHead;
    grid.setShown(shown);
    const QImage perHead = grid.grab().toImage();
    const std::vector<float> mean = meanOverHeads(b, layer);
    int differing = 0;
    for (int head = kMeanHead; head < b.heads; ++head) {
        const QRect tile = grid.tileRect(layer, head);
        const float* w = head == kMeanHead ? mean.data() : b.row(layer, head, 0);
        const auto [lo, hi] = informativeRange(w, b.queries, b.keys, kind == AttentionKind::Decoder);
        bool reachedTop = false;
        for (int q = 0; q < b.queries; ++q)
            for (int k = 0; k < b.keys; ++k) {
                const QPoint p = cellCentre(tile, b.queries, b.keys, q, k);
                const float v = w[q * b.keys + k];
                if (kind == AttentionKind::Decoder && k > q) { // a future key: masked, not a weight of 0
                    QCOMPARE(fixed.pixel(p), map.maskedColor());
                    QCOMPARE(perHead.pixel(p), map.maskedColor());
                    continue;
                }
                QCOMPARE(fixed.pixel(p), map.color(v));
                QCOMPARE(perHead.pixel(p), map.color((v - lo) / (hi - lo)));
                differing += fixed.pixel(p) != perHead.pixel(p);
                reachedTop = reachedTop || (v == hi && perHead.pixel(p) == map.lut().back());
            }
        // Stretching a head reaches the top of the colour map.
        QVERIFY2(reachedTop, qPrintable(QStringLiteral("head %1").arg(head)));
    }
    QVERIFY(differing > (b.heads + 1) * b.queries * b.keys / 2);

    // Another colour map repaints the tiles.
    const QRect tile = grid.tileRect(layer, 0);
    shown.colorMap = ui::ColorMap::byName(QStringLiteral("greys"));
    grid.setShown(shown);
    QVERIFY(grid.grab().toImage().pixel(cellCentre(tile, b.queries, b.keys, 0, 0)) !=
            perHead.pixel(cellCentre(tile, b.queries, b.keys, 0, 0)));
}

// A block no larger than its tile is coloured one pixel per weight, as it always was; the tile here is
// exactly as tall as the block, the edge case where pooling must not start yet.
void TestGridPixels::onePixelPerWeight() {
    AttentionGrid grid;
    grid.resize(500, 300);
    grid.setShown({gridSnapshot(2, 3, 4, 4)});
    const QSize tile = grid.tileRect(0, 0).size() * grid.devicePixelRatioF();
    const auto snap = std::make_shared<AttentionSnapshot>();
    std::mt19937 rng(11);
    fillBlock(snap->encoder, 2, 3, tile.height(), tile.width() / 3, false, rng);
    snap->srcTokens.resize(std::size_t(tile.height()));
    grid.setShown({snap});
    QCOMPARE(grid.tileRect(0, 0).size() * grid.devicePixelRatioF(), tile);
    const auto& b = snap->encoder;
    const auto map = ui::ColorMap::byName(QString());
    const QImage img = grid.grab().toImage();
    for (int layer = 0; layer < b.layers; ++layer) {
        const std::vector<float> mean = meanOverHeads(b, layer);
        for (int head = kMeanHead; head < b.heads; ++head) {
            const QImage px = tilePixels(img, grid.tileRect(layer, head));
            const float* w = head == kMeanHead ? mean.data() : b.row(layer, head, 0);
            for (int q = 0; q < b.queries; ++q)
                for (int k = 0; k < b.keys; ++k) {
                    const QPoint p = cellCentre(px.rect(), b.queries, b.keys, q, k);
                    QCOMPARE(px.pixel(p), map.color(w[q * b.keys + k]));
                }
            QVERIFY(!grid.tileToolTip(layer, head).contains(QLatin1String("largest")));
        }
    }
}

// A block larger than its tile is max-pooled to the tile's device pixels: a one-cell diagonal and a single
// key every query attends to stay at full strength, and the mean tile pools the mean over heads (a mean of
// the heads' pooled tiles would be twice as bright on the diagonal).
void TestGridPixels::maxPooled() {
    constexpr int n = 600, strongKey = 377;
    const auto snap = std::make_shared<AttentionSnapshot>();
    snap->srcTokens.resize(n);
    auto& b = snap->encoder;
    b.resize(1, 3, n, n);
    for (int q = 0; q < n; ++q) {
        b.data.mutableData()[b.index(0, 0, q, q)] = 1.0f;                  // the diagonal
        b.data.mutableData()[b.index(0, 1, q, std::max(q - 1, 0))] = 1.0f; // the token before
        b.data.mutableData()[b.index(0, 2, q, strongKey)] = 1.0f;          // one key for every query
    }
    AttentionGrid grid;
    grid.resize(400, 200);
    grid.setShown({snap});
    const auto map = ui::ColorMap::byName(QString());
    const QRgb zero = map.color(0.0), one = map.color(1.0), third = map.color(double(1.0f / 3.0f));
    const QString mismatch = poolingMismatch(grid, n, strongKey, one, zero);
    QVERIFY2(mismatch.isEmpty(), qPrintable(mismatch));
    maybeSave(grid, "grid-pooled.png");

    const QImage img = grid.grab().toImage();
    const QImage mean = tilePixels(img, grid.tileRect(0, kMeanHead));
    const int side = mean.width();
    QVERIFY2(side < n && std::lround(side / img.devicePixelRatio()) == grid.tileRect(0, 0).width(),
             qPrintable(QStringLiteral("%1 px").arg(side)));
    for (int i = 1; i < side; ++i)
        if (binStart(i, side, n) > strongKey || binStart(i + 1, side, n) <= strongKey)
            QCOMPARE(mean.pixel(i, i), third);

    const QString tip = grid.tileToolTip(0, 0);
    const int upTo = (n + side - 1) / side;
    QVERIFY2(tip.contains(QStringLiteral("largest of the up to %1 queries \u00d7 %1 keys").arg(upTo)),
             qPrintable(tip));

    // While the size is changing, the tiles pooled for the old size are drawn scaled (a diagonal scaled up
    // is more than one pixel wide in places); once it has settled, they are pooled for the new size.
    grid.resize(600, 300);
    QVERIFY(!poolingMismatch(grid, n, strongKey, one, zero).isEmpty());
    QTRY_VERIFY2(poolingMismatch(grid, n, strongKey, one, zero).isEmpty(),
                 qPrintable(poolingMismatch(grid, n, strongKey, one, zero)));
}

void TestGridPixels::paintTime_data() {
    QTest::addColumn<int>("tokens");
    QTest::newRow("T=64") << 64;
    QTest::newRow("T=256") << 256;
}

void TestGridPixels::paintTime() {
    QFETCH(int, tokens);
    // Only the encoder block is painted; filling the other kinds at T=256 would dominate the test's time.
    auto snap = std::make_shared<AttentionSnapshot>();
    snap->srcTokens.resize(std::size_t(tokens));
    std::mt19937 rng(3);
    fillBlock(snap->encoder, 12, 12, tokens, tokens, false, rng);
    AttentionGrid grid;
    grid.resize(1100, 950);
    grid.setShown({snap, AttentionKind::Encoder, 3, 5});
    QCOMPARE(grid.layers(), 12);
    QCOMPARE(grid.heads(), 12);
    grid.setHighlightedQuery(tokens / 2);
    QImage target(grid.size(), QImage::Format_ARGB32_Premultiplied);
    // The first paint pools and colours the tiles; later ones, with nothing changed, only draw them.
    QElapsedTimer first;
    first.start();
    grid.render(&target);
    const double firstMs = first.nsecsElapsed() / 1e6;
    std::vector<double> ms;
    for (int i = 0; i < 21; ++i) {
        QElapsedTimer t;
        t.start();
        grid.render(&target);
        ms.push_back(t.nsecsElapsed() / 1e6);
    }
    std::sort(ms.begin(), ms.end());
    qInfo("12x12 grid, T=%d, %dx%d px: first paint %.1f ms; repaint median %.2f ms (min %.2f, max %.2f)",
          tokens, grid.width(), grid.height(), firstMs, ms[ms.size() / 2], ms.front(), ms.back());
    if (tokens == 64)
        maybeSave(grid, "grid-12x12.png");
}

QTEST_MAIN(TestGridPixels)
#include "test_gridpixels.moc"
