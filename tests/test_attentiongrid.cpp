// AttentionGrid as a real widget, offscreen: tile geometry, clicks, tooltips, keys, colour scaling, markers,
// one pixel per weight for short inputs and max pooling for long ones, the empty-kind message, and the paint
// time of a 12 × 12 grid (printed, not asserted).

#include "SyntheticSnapshots.h"
#include "TestModels.h"
#include "core/analysis/AttentionStats.h"
#include "core/run/Session.h"
#include "ui/AttentionGrid.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QToolTip>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <random>

using namespace core;
using ui::AttentionGrid;

Q_DECLARE_METATYPE(core::AttentionKind)

namespace {

std::shared_ptr<const AttentionSnapshot> synthetic(int layers, int heads, int srcLen, int tgtLen) {
    return syntheticSnapshot(layers, heads, srcLen, tgtLen, 7, false);
}

// Where cell (q, k) of a tile is painted: the centre of its scaled rectangle.
QPoint cellCentre(const QRect& tile, int queries, int keys, int q, int k) {
    return {tile.left() + int((k + 0.5) * tile.width() / keys),
            tile.top() + int((q + 0.5) * tile.height() / queries)};
}

// The tile's own device pixels in a grab, which is as large as the widget times its device pixel ratio.
QImage tilePixels(const QImage& grab, const QRect& tile) {
    const qreal dpr = grab.devicePixelRatio();
    return grab.copy(QRectF(QPointF(tile.topLeft()) * dpr, QSizeF(tile.size()) * dpr).toRect());
}

// Pixel i of n covers cells [first(i), first(i + 1)) of a side of `cells`, as the grid pools them.
int firstCell(int i, int n, int cells) {
    return int(qint64(i) * cells / n);
}

// Where a grab of the grid differs from maxPooled()'s heads 0 (the diagonal) and 2 (one key for every
// query) max-pooled into its tiles' device pixels; empty when it does not.
QString poolingMismatch(AttentionGrid& grid, int cells, int strongKey, QRgb one, QRgb zero) {
    const QImage img = grid.grab().toImage();
    const QImage diagonal = tilePixels(img, grid.tileRect(0, 0));
    const QImage column = tilePixels(img, grid.tileRect(0, 2));
    const int side = diagonal.width();
    int strongPixel = 0;
    while (firstCell(strongPixel + 1, side, cells) <= strongKey)
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

void maybeSave(QWidget& w, const char* name) {
    const QByteArray dir = qgetenv("ATTNSCOPE_TEST_SHOTS");
    if (!dir.isEmpty())
        w.grab().save(QString::fromLocal8Bit(dir) + QLatin1Char('/') + QLatin1String(name));
}

} // namespace

class TestAttentionGrid : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void geometry_data();
    void geometry();
    void click_data();
    void click();
    void tooltip();
    void keys_data();
    void keys();
    void scaleModes_data();
    void scaleModes();
    void onePixelPerWeight();
    void maxPooled();
    void markers();
    void emptyKind();
    void realModel();
    void paintTime_data();
    void paintTime();
};

void TestAttentionGrid::geometry_data() {
    QTest::addColumn<AttentionKind>("kind");
    QTest::newRow("encoder") << AttentionKind::Encoder;
    QTest::newRow("decoder") << AttentionKind::Decoder;
    QTest::newRow("cross") << AttentionKind::Cross;
}

void TestAttentionGrid::geometry() {
    QFETCH(AttentionKind, kind);
    AttentionGrid grid;
    grid.resize(700, 500);
    grid.setSnapshot(synthetic(3, 4, 9, 5));
    grid.setKind(kind);
    QCOMPARE(grid.layers(), 3);
    QCOMPARE(grid.heads(), 4);
    std::vector<QRect> rects;
    for (int l = 0; l < 3; ++l)
        for (int h = AttentionGrid::kMeanHead; h < 4; ++h) {
            const QRect r = grid.tileRect(l, h);
            QVERIFY2(!r.isEmpty(), qPrintable(QStringLiteral("%1/%2").arg(l).arg(h)));
            QVERIFY(grid.rect().contains(r));
            QVERIFY(r.width() >= 24 && r.height() >= 24);
            QCOMPARE(r.width(), r.height()); // room enough for squares
            QCOMPARE(grid.tileAt(r.center()), std::make_pair(l, h));
            for (const QRect& other : rects)
                QVERIFY(!other.intersects(r));
            rects.push_back(r);
        }
    // The mean column is the last one.
    QVERIFY(grid.tileRect(0, AttentionGrid::kMeanHead).left() > grid.tileRect(0, 3).right());
    QCOMPARE(grid.tileRect(3, 0), QRect());
    QCOMPARE(grid.tileRect(0, 4), QRect());
    QCOMPARE(grid.tileAt(QPoint(1, 1)), std::make_pair(-1, 0));
    QVERIFY(grid.minimumSizeHint().width() <= grid.sizeHint().width());
}

void TestAttentionGrid::click_data() {
    QTest::addColumn<int>("layer");
    QTest::addColumn<int>("head");
    QTest::newRow("first") << 0 << 0;
    QTest::newRow("middle") << 1 << 2;
    QTest::newRow("last head") << 2 << 3;
    QTest::newRow("mean") << 2 << int(AttentionGrid::kMeanHead);
}

void TestAttentionGrid::click() {
    QFETCH(int, layer);
    QFETCH(int, head);
    AttentionGrid grid;
    grid.resize(700, 500);
    grid.setSnapshot(synthetic(3, 4, 9, 5));
    grid.show();
    QVERIFY(QTest::qWaitForWindowExposed(&grid));
    QSignalSpy spy(&grid, &AttentionGrid::tileClicked);
    QTest::mouseClick(&grid, Qt::LeftButton, {}, grid.tileRect(layer, head).center());
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.at(0).at(0).toInt(), layer);
    QCOMPARE(spy.at(0).at(1).toInt(), head);
    // Between tiles nothing is clicked.
    QTest::mouseClick(&grid, Qt::LeftButton, {}, QPoint(2, 2));
    QCOMPARE(spy.count(), 1);
}

void TestAttentionGrid::tooltip() {
    AttentionGrid grid;
    grid.resize(700, 500);
    const auto snap = synthetic(3, 4, 9, 5);
    grid.setSnapshot(snap);
    grid.show();
    QVERIFY(QTest::qWaitForWindowExposed(&grid));

    const QString tip = grid.tileToolTip(1, 2);
    QVERIFY2(tip.contains(QLatin1String("Layer 1")), qPrintable(tip));
    QVERIFY2(tip.contains(QLatin1String("head 2")), qPrintable(tip));
    const HeadStats s = headStats(snap->encoder, 1, 2);
    QVERIFY2(tip.contains(QStringLiteral("Entropy: %1 bits").arg(s.meanEntropyBits, 0, 'f', 2)),
             qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("Max weight: %1").arg(double(s.maxWeight), 0, 'f', 3)),
             qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("Mean distance: %1").arg(s.meanDistance, 0, 'f', 2)),
             qPrintable(tip));
    QVERIFY2(
        tip.contains(QStringLiteral("Weight on the first token: %1").arg(s.firstTokenWeight, 0, 'f', 3)) &&
            tip.contains(QStringLiteral("Previous-token score: %1").arg(s.previousTokenScore, 0, 'f', 3)),
        qPrintable(tip));
    QVERIFY(grid.tileToolTip(1, 3) != tip);
    const QString meanTip = grid.tileToolTip(0, AttentionGrid::kMeanHead);
    QVERIFY2(meanTip.contains(QLatin1String("mean over 4 heads")), qPrintable(meanTip));
    QVERIFY(grid.tileToolTip(5, 0).isEmpty());

    // The hover path shows the same text.
    const QPoint at = grid.tileRect(1, 2).center();
    QHelpEvent help(QEvent::ToolTip, at, grid.mapToGlobal(at));
    QApplication::sendEvent(&grid, &help);
    QTRY_VERIFY(QToolTip::isVisible());
    QCOMPARE(QToolTip::text(), tip);
    QToolTip::hideText();
}

void TestAttentionGrid::keys_data() {
    addNavigationKeyRows();
}

void TestAttentionGrid::keys() {
    QFETCH(int, key);
    QFETCH(int, dLayer);
    QFETCH(int, dHead);
    AttentionGrid grid;
    grid.setSnapshot(synthetic(3, 4, 9, 5));
    QCOMPARE(grid.focusPolicy(), Qt::StrongFocus);
    QSignalSpy spy(&grid, &AttentionGrid::navigate);
    QTest::keyClick(&grid, Qt::Key(key));
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.at(0).at(0).toInt(), dLayer);
    QCOMPARE(spy.at(0).at(1).toInt(), dHead);
    QTest::keyClick(&grid, Qt::Key_A);
    QCOMPARE(spy.count(), 1);
}

void TestAttentionGrid::scaleModes_data() {
    QTest::addColumn<AttentionKind>("kind");
    QTest::newRow("encoder") << AttentionKind::Encoder;
    // Causal: the masked cells and the first row (one key, weight 1) stay out of a head's range.
    QTest::newRow("decoder") << AttentionKind::Decoder;
}

void TestAttentionGrid::scaleModes() {
    QFETCH(AttentionKind, kind);
    AttentionGrid grid;
    grid.resize(900, 700);
    const auto snap = synthetic(2, 3, 6, 5);
    grid.setSnapshot(snap);
    grid.setKind(kind);
    const auto map = ui::ColorMap::byName(QStringLiteral("viridis"));
    grid.setColorMap(map);
    const auto& b = snap->block(kind);
    const int layer = 1;
    const QImage fixed = grid.grab().toImage();
    grid.setScaleMode(ui::ScaleMode::PerHead);
    const QImage perHead = grid.grab().toImage();
    const std::vector<float> mean = meanOverHeads(b, layer);
    int differing = 0;
    for (int head = AttentionGrid::kMeanHead; head < b.heads; ++head) {
        const QRect tile = grid.tileRect(layer, head);
        const float* w = head == AttentionGrid::kMeanHead ? mean.data() : b.row(layer, head, 0);
        const auto [lo, hi] = informativeRange(w, b.queries, b.keys, kind == AttentionKind::Decoder);
        bool reachedTop = false;
        for (int q = 0; q < b.queries; ++q)
            for (int k = 0; k < b.keys; ++k) {
                const QPoint p = cellCentre(tile, b.queries, b.keys, q, k);
                const float v = w[q * b.keys + k];
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
    grid.setColorMap(ui::ColorMap::byName(QStringLiteral("greys")));
    QVERIFY(grid.grab().toImage().pixel(cellCentre(tile, b.queries, b.keys, 0, 0)) !=
            perHead.pixel(cellCentre(tile, b.queries, b.keys, 0, 0)));
}

// A block no larger than its tile is coloured one pixel per weight, as it always was; the tile here is
// exactly as tall as the block, the edge case where pooling must not start yet.
void TestAttentionGrid::onePixelPerWeight() {
    AttentionGrid grid;
    grid.resize(500, 300);
    grid.setSnapshot(synthetic(2, 3, 4, 4));
    const QSize tile = grid.tileRect(0, 0).size() * grid.devicePixelRatioF();
    const auto snap = std::make_shared<AttentionSnapshot>();
    std::mt19937 rng(11);
    fillBlock(snap->encoder, 2, 3, tile.height(), tile.width() / 3, false, rng);
    snap->srcTokens.resize(std::size_t(tile.height()));
    grid.setSnapshot(snap);
    QCOMPARE(grid.tileRect(0, 0).size() * grid.devicePixelRatioF(), tile);
    const auto& b = snap->encoder;
    const auto map = ui::ColorMap::byName(QString());
    const QImage img = grid.grab().toImage();
    for (int layer = 0; layer < b.layers; ++layer) {
        const std::vector<float> mean = meanOverHeads(b, layer);
        for (int head = AttentionGrid::kMeanHead; head < b.heads; ++head) {
            const QImage px = tilePixels(img, grid.tileRect(layer, head));
            const float* w = head == AttentionGrid::kMeanHead ? mean.data() : b.row(layer, head, 0);
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
void TestAttentionGrid::maxPooled() {
    constexpr int n = 600, strongKey = 377;
    const auto snap = std::make_shared<AttentionSnapshot>();
    snap->srcTokens.resize(n);
    auto& b = snap->encoder;
    b.resize(1, 3, n, n);
    for (int q = 0; q < n; ++q) {
        b.data[b.index(0, 0, q, q)] = 1.0f;                  // the diagonal
        b.data[b.index(0, 1, q, std::max(q - 1, 0))] = 1.0f; // the token before
        b.data[b.index(0, 2, q, strongKey)] = 1.0f;          // one key for every query
    }
    AttentionGrid grid;
    grid.resize(400, 200);
    grid.setSnapshot(snap);
    const auto map = ui::ColorMap::byName(QString());
    const QRgb zero = map.color(0.0), one = map.color(1.0), third = map.color(double(1.0f / 3.0f));
    const QString mismatch = poolingMismatch(grid, n, strongKey, one, zero);
    QVERIFY2(mismatch.isEmpty(), qPrintable(mismatch));
    maybeSave(grid, "grid-pooled.png");

    const QImage img = grid.grab().toImage();
    const QImage mean = tilePixels(img, grid.tileRect(0, AttentionGrid::kMeanHead));
    const int side = mean.width();
    QVERIFY2(side < n && std::lround(side / img.devicePixelRatio()) == grid.tileRect(0, 0).width(),
             qPrintable(QStringLiteral("%1 px").arg(side)));
    for (int i = 1; i < side; ++i)
        if (firstCell(i, side, n) > strongKey || firstCell(i + 1, side, n) <= strongKey)
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

void TestAttentionGrid::markers() {
    AttentionGrid grid;
    grid.resize(900, 700);
    grid.setSnapshot(synthetic(2, 3, 6, 6));
    grid.setKind(AttentionKind::Decoder);
    const int q = 4;
    const QRect tile = grid.tileRect(1, 2);
    const QPoint besideRow(tile.left() - 4, cellCentre(tile, 6, 6, q, 0).y());
    const QPoint besideOtherRow(tile.left() - 4, cellCentre(tile, 6, 6, 1, 0).y());
    const QImage before = grid.grab().toImage();
    grid.setHighlightedQuery(q);
    const QImage marked = grid.grab().toImage();
    QVERIFY(marked.pixel(besideRow) != before.pixel(besideRow));
    QCOMPARE(marked.pixel(besideOtherRow), before.pixel(besideOtherRow));
    // Marker in the mean column too.
    const QRect mean = grid.tileRect(0, AttentionGrid::kMeanHead);
    const QPoint besideMean(mean.left() - 4, cellCentre(mean, 6, 6, q, 0).y());
    QVERIFY(marked.pixel(besideMean) != before.pixel(besideMean));
    grid.setHighlightedQuery(-1);
    QCOMPARE(grid.grab().toImage().pixel(besideRow), before.pixel(besideRow));

    // The selection outline sits just outside the selected tile.
    const QPoint outline(tile.left() - 2, tile.center().y());
    grid.setSelection(0, 0);
    const QImage unselected = grid.grab().toImage();
    grid.setSelection(1, 2);
    const QImage selected = grid.grab().toImage();
    QVERIFY(selected.pixel(outline) != unselected.pixel(outline));
    const QRect first = grid.tileRect(0, 0);
    QVERIFY(selected.pixel(first.left() - 2, first.center().y()) !=
            unselected.pixel(first.left() - 2, first.center().y()));
}

void TestAttentionGrid::emptyKind() {
    AttentionGrid grid;
    grid.resize(600, 400);
    QVERIFY(!grid.emptyMessage().isEmpty()); // before any snapshot
    QCOMPARE(grid.layers(), 0);

    auto cfg = smallConfig(Architecture::DecoderOnly, PositionalEncoding::Learned);
    Session session(randomModel(cfg));
    session.analyze("hello");
    auto snap = std::make_shared<const AttentionSnapshot>(session.snapshot());
    grid.setSnapshot(snap);
    grid.setKind(AttentionKind::Cross);
    QCOMPARE(grid.emptyMessage(), QStringLiteral("No cross-attention: this model has no encoder"));
    QCOMPARE(grid.layers(), 0);
    QCOMPARE(grid.tileRect(0, 0), QRect());
    QCOMPARE(grid.tileAt(grid.rect().center()), std::make_pair(-1, 0));
    grid.setKind(AttentionKind::Encoder);
    QVERIFY(grid.emptyMessage().contains(QLatin1String("no encoder")));
    maybeSave(grid, "grid-empty.png");
    // Something is painted: the message, not a blank widget.
    const QImage img = grid.grab().toImage();
    const QRgb bg = img.pixel(1, 1);
    bool ink = false;
    for (int x = 0; x < img.width() && !ink; ++x)
        ink = img.pixel(x, img.height() / 2) != bg;
    QVERIFY(ink);

    grid.setKind(AttentionKind::Decoder);
    QVERIFY(grid.emptyMessage().isEmpty());
    QCOMPARE(grid.layers(), cfg.decoderLayers);
    QCOMPARE(grid.heads(), cfg.heads);
}

void TestAttentionGrid::realModel() {
    auto cfg = smallConfig(Architecture::EncoderDecoder, PositionalEncoding::Sinusoidal);
    Session session(randomModel(cfg));
    session.analyze("hello world");
    session.step();
    session.step();
    auto snap = std::make_shared<const AttentionSnapshot>(session.snapshot());
    AttentionGrid grid;
    grid.resize(800, 500);
    grid.setSnapshot(snap);
    grid.setKind(AttentionKind::Cross);
    grid.setSelection(1, 2);
    grid.setHighlightedQuery(int(snap->tgtTokens.size()) - 1);
    QCOMPARE(grid.layers(), cfg.decoderLayers);
    QCOMPARE(grid.heads(), cfg.heads);
    const auto s = headStats(snap->cross, 1, 3);
    QVERIFY(grid.tileToolTip(1, 3).contains(QStringLiteral("%1 bits").arg(s.meanEntropyBits, 0, 'f', 2)));
    maybeSave(grid, "grid-cross.png");
    grid.setKind(AttentionKind::Decoder);
    maybeSave(grid, "grid-decoder.png");
}

void TestAttentionGrid::paintTime_data() {
    QTest::addColumn<int>("tokens");
    QTest::newRow("T=64") << 64;
    QTest::newRow("T=256") << 256;
}

void TestAttentionGrid::paintTime() {
    QFETCH(int, tokens);
    // Only the encoder block is painted; filling the other kinds at T=256 would dominate the test's time.
    auto snap = std::make_shared<AttentionSnapshot>();
    snap->srcTokens.resize(std::size_t(tokens));
    std::mt19937 rng(3);
    fillBlock(snap->encoder, 12, 12, tokens, tokens, false, rng);
    AttentionGrid grid;
    grid.resize(1100, 950);
    grid.setSnapshot(snap);
    QCOMPARE(grid.layers(), 12);
    QCOMPARE(grid.heads(), 12);
    grid.setSelection(3, 5);
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

QTEST_MAIN(TestAttentionGrid)
#include "test_attentiongrid.moc"
