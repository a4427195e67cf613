// A grid of a large block pools its layers in slices on timer events, so neither a paint nor a slice keeps
// the window busy: the layers not pooled yet are blank for a moment, each slice pools at least one more, the
// slices and repaints follow by themselves, a small block is pooled by its first paint, and a picture
// (poolAll, as exports and screenshots call it) has every tile.

#include "tests/support/SyntheticSnapshots.h"
#include "ui/views/AttentionGrid.h"

#include <QtTest>

using namespace core;
using ui::AttentionGrid;

namespace {

// Layers whose every tile is painted (not the blank of a layer still to pool), in a grab of the grid.
int paintedLayers(AttentionGrid& grid, int layers, int heads) {
    const QImage img = grid.grab().toImage();
    const qreal dpr = img.devicePixelRatio();
    const QRgb blank = grid.palette().color(QPalette::Midlight).rgb();
    int painted = 0;
    for (int l = 0; l < layers; ++l) {
        bool all = true;
        for (int h = 0; h < heads && all; ++h) {
            const QRect t = grid.tileRect(l, h);
            const QImage tile = img.copy(QRectF(QPointF(t.topLeft()) * dpr, QSizeF(t.size()) * dpr).toRect());
            bool onlyBlank = true;
            for (int y = 0; y < tile.height() && onlyBlank; ++y)
                for (int x = 0; x < tile.width() && onlyBlank; ++x)
                    onlyBlank = tile.pixel(x, y) == blank;
            all = !onlyBlank;
        }
        painted += all ? 1 : 0;
    }
    return painted;
}

} // namespace

class TestGridPooling : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void oneSliceAtATime();
    void smallBlocksInThePaint();
    void repaintsFollowUntilDone();
    void poolAllForPictures();
};

void TestGridPooling::oneSliceAtATime() {
    const int layers = 5, heads = 3;
    AttentionGrid grid;
    grid.resize(500, 700);
    grid.setPoolInPaintCells(0); // every block in slices
    grid.setPoolBudgetMs(0);     // of one layer each
    grid.setShown({syntheticSnapshot(layers, heads, 0, 300, 3), AttentionKind::Decoder});
    QCOMPARE(paintedLayers(grid, layers, heads), 0); // the paint pools nothing and asks for a slice
    for (int slices = 1; slices <= layers; ++slices) {
        QCoreApplication::processEvents(); // the slice's zero timer
        QCOMPARE(paintedLayers(grid, layers, heads), slices);
    }
}

void TestGridPooling::smallBlocksInThePaint() {
    AttentionGrid grid;
    grid.resize(500, 700);
    grid.setShown({syntheticSnapshot(4, 4, 0, 60, 4), AttentionKind::Decoder}); // 57,600 weights
    QCOMPARE(paintedLayers(grid, 4, 4), 4);
}

void TestGridPooling::repaintsFollowUntilDone() {
    // On screen nothing else asks for the paints that finish the pooling: the grid schedules them.
    const int layers = 6, heads = 2;
    AttentionGrid grid;
    grid.resize(400, 700);
    grid.setPoolInPaintCells(0);
    grid.setPoolBudgetMs(0);
    grid.setShown({syntheticSnapshot(layers, heads, 0, 200, 5), AttentionKind::Decoder});
    grid.show();
    QVERIFY(QTest::qWaitForWindowExposed(&grid));
    QTRY_VERIFY_WITH_TIMEOUT(paintedLayers(grid, layers, heads) == layers, 5000);
}

void TestGridPooling::poolAllForPictures() {
    const int layers = 4, heads = 4;
    AttentionGrid grid;
    grid.resize(600, 600);
    grid.setPoolInPaintCells(0);
    grid.setPoolBudgetMs(0);
    grid.setShown({syntheticSnapshot(layers, heads, 150, 120, 9), AttentionKind::Cross});
    grid.poolAll();
    QCOMPARE(paintedLayers(grid, layers, heads), layers);
}

QTEST_MAIN(TestGridPooling)
#include "test_gridpooling.moc"
