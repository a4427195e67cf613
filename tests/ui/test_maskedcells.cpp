// Masked cells (the future keys of decoder self-attention) are drawn apart from small weights, in the grid's
// tiles and in the detail heatmap, so a weight of 0.0001 and a key the query may not see no longer look
// alike; pictures exported from the views show the same.

#include "tests/support/SyntheticSnapshots.h"

#include "ui/base/ColorMap.h"
#include "ui/base/QCustomPlotInclude.h"
#include "ui/views/AttentionTiles.h"
#include "ui/views/HeatmapView.h"

#include <QtTest>

class TestMaskedCells : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void maskedFromFollowsTheBins();
    void tilesPaintMaskedCellsApart_data();
    void tilesPaintMaskedCellsApart();
    void heatmapPaintsMaskedCellsApart();
};

void TestMaskedCells::maskedFromFollowsTheBins() {
    // One cell per token: row q masks the keys after q.
    QCOMPARE(ui::AttentionTiles::maskedFrom(4, 4, 4, 4), (std::vector<int>{1, 2, 3, 4}));
    // 8 tokens in 4 bins a side: a bin of rows sees up to its last query, so the cell that also holds it
    // is not masked.
    QCOMPARE(ui::AttentionTiles::maskedFrom(4, 4, 8, 8), (std::vector<int>{1, 2, 3, 4}));
    // A step's rows over a longer prefix (keys − queries more keys visible to each).
    QCOMPARE(ui::AttentionTiles::maskedFrom(2, 5, 2, 5), (std::vector<int>{4, 5}));
}

void TestMaskedCells::tilesPaintMaskedCellsApart_data() {
    QTest::addColumn<QString>("map");
    for (const auto& name : ui::ColorMap::names())
        QTest::newRow(qPrintable(name)) << name;
}

void TestMaskedCells::tilesPaintMaskedCellsApart() {
    QFETCH(QString, map);
    core::AttentionBlock b;
    std::mt19937 rng(3);
    fillBlock(b, 1, 1, 6, 6, true, rng);
    b.data.mutableData()[b.index(0, 0, 5, 2)] =
        0.0f; // a visible weight of exactly 0: the darkest colour, not masked
    const auto colours = ui::ColorMap::byName(map);
    ui::AttentionTiles tiles;
    tiles.setColorMap(colours);
    tiles.setPixelSize(QSize(6, 6));
    tiles.setBlock(&b, true);
    const QImage img = tiles.image(0, 0);
    QCOMPARE(img.size(), QSize(6, 6));
    for (int q = 0; q < 6; ++q)
        for (int k = 0; k < 6; ++k) {
            const QRgb px = img.pixel(k, q);
            if (k > q)
                QCOMPARE(px, colours.maskedColor());
            else
                QVERIFY2(px != colours.maskedColor(), qPrintable(QStringLiteral("%1,%2").arg(q).arg(k)));
        }
    QCOMPARE(img.pixel(2, 5), colours.lut().front());
    // The masked colour is none of the map's own.
    QVERIFY(!colours.lut().contains(colours.maskedColor()));
}

void TestMaskedCells::heatmapPaintsMaskedCellsApart() {
    const auto snap = syntheticSnapshot(1, 2, 0, 6, 5);
    ui::HeatmapView view;
    view.resize(600, 500);
    view.show();
    ui::ShownAttention shown{snap, core::AttentionKind::Decoder, 0, 0};
    view.setShown(shown);
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.plot()->replot();
    const QImage img = view.plot()->toPixmap().toImage();
    const auto at = [&](int q, int k) {
        return img.pixel(static_cast<int>(view.plot()->xAxis->coordToPixel(k)),
                         static_cast<int>(view.plot()->yAxis->coordToPixel(q)));
    };
    const QRgb masked = shown.colorMap.maskedColor();
    QCOMPARE(at(0, 5), masked);
    QCOMPARE(at(2, 3), masked);
    QVERIFY(at(3, 2) != masked);
    QVERIFY(at(5, 5) != masked);
    // The tooltip still speaks of the weight (0) for a masked cell, and names it masked.
    QVERIFY(view.cellToolTip(0, 5).contains(QStringLiteral("0")));
}

QTEST_MAIN(TestMaskedCells)
#include "test_maskedcells.moc"
