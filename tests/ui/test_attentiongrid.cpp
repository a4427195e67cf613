// AttentionGrid as a real widget, offscreen: tile geometry, clicks, tooltips, keys, markers and the
// selection outline, the empty-kind message, and a real model's attention. Its pixels (colour scales, one
// pixel per weight, max pooling, paint time) are test_gridpixels's.

#include "core/analysis/AttentionStats.h"
#include "core/run/Session.h"
#include "tests/support/GridTestHelpers.h"
#include "tests/support/TestModels.h"
#include "ui/views/AttentionGrid.h"

#include <QSignalSpy>
#include <QToolTip>
#include <QtTest>

using namespace core;
using ui::AttentionGrid;

Q_DECLARE_METATYPE(core::AttentionKind)

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
    void markers();
    void emptyKind();
    void realModel();
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
    grid.setShown({gridSnapshot(3, 4, 9, 5), kind});
    QCOMPARE(grid.layers(), 3);
    QCOMPARE(grid.heads(), 4);
    std::vector<QRect> rects;
    for (int l = 0; l < 3; ++l)
        for (int h = kMeanHead; h < 4; ++h) {
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
    QVERIFY(grid.tileRect(0, kMeanHead).left() > grid.tileRect(0, 3).right());
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
    QTest::newRow("mean") << 2 << kMeanHead;
}

void TestAttentionGrid::click() {
    QFETCH(int, layer);
    QFETCH(int, head);
    AttentionGrid grid;
    grid.resize(700, 500);
    grid.setShown({gridSnapshot(3, 4, 9, 5)});
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
    const auto snap = gridSnapshot(3, 4, 9, 5);
    grid.setShown({snap});
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
    const QString meanTip = grid.tileToolTip(0, kMeanHead);
    QVERIFY2(meanTip.contains(QLatin1String("mean over 4 heads")), qPrintable(meanTip));
    QVERIFY(grid.tileToolTip(5, 0).isEmpty());
    // A causal head's first row sees only itself (weight 1): its maximum leaves that row out, and says so.
    grid.setShown({snap, core::AttentionKind::Decoder});
    const QString causalTip = grid.tileToolTip(1, 2);
    const HeadStats d = headStats(snap->decoder, 1, 2);
    QCOMPARE(d.maxWeight, 1.0f);
    QVERIFY(d.maxWeightPastFirstRow < 1.0f);
    QVERIFY2(
        causalTip.contains(QStringLiteral("Max weight: %1 (the first row, which sees only itself, left out)")
                               .arg(double(d.maxWeightPastFirstRow), 0, 'f', 3)),
        qPrintable(causalTip));
    grid.setShown({snap});

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
    grid.setShown({gridSnapshot(3, 4, 9, 5)});
    QCOMPARE(grid.focusPolicy(), Qt::StrongFocus);
    QSignalSpy spy(&grid, &AttentionGrid::navigate);
    QTest::keyClick(&grid, Qt::Key(key));
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.at(0).at(0).toInt(), dLayer);
    QCOMPARE(spy.at(0).at(1).toInt(), dHead);
    QTest::keyClick(&grid, Qt::Key_A);
    QCOMPARE(spy.count(), 1);
}

void TestAttentionGrid::markers() {
    AttentionGrid grid;
    grid.resize(900, 700);
    ui::ShownAttention shown{gridSnapshot(2, 3, 6, 6), AttentionKind::Decoder};
    grid.setShown(shown);
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
    const QRect mean = grid.tileRect(0, kMeanHead);
    const QPoint besideMean(mean.left() - 4, cellCentre(mean, 6, 6, q, 0).y());
    QVERIFY(marked.pixel(besideMean) != before.pixel(besideMean));
    grid.setHighlightedQuery(-1);
    QCOMPARE(grid.grab().toImage().pixel(besideRow), before.pixel(besideRow));

    // The selection outline sits just outside the selected tile.
    const QPoint outline(tile.left() - 2, tile.center().y());
    shown.layer = shown.head = 0;
    grid.setShown(shown);
    const QImage unselected = grid.grab().toImage();
    shown.layer = 1;
    shown.head = 2;
    grid.setShown(shown);
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
    ui::ShownAttention shown{snap, AttentionKind::Cross};
    grid.setShown(shown);
    QCOMPARE(grid.emptyMessage(), QStringLiteral("No cross-attention: this model has no encoder"));
    QCOMPARE(grid.layers(), 0);
    QCOMPARE(grid.tileRect(0, 0), QRect());
    QCOMPARE(grid.tileAt(grid.rect().center()), std::make_pair(-1, 0));
    shown.kind = AttentionKind::Encoder;
    grid.setShown(shown);
    QVERIFY(grid.emptyMessage().contains(QLatin1String("no encoder")));
    maybeSave(grid, "grid-empty.png");
    // Something is painted: the message, not a blank widget.
    const QImage img = grid.grab().toImage();
    const QRgb bg = img.pixel(1, 1);
    bool ink = false;
    for (int x = 0; x < img.width() && !ink; ++x)
        ink = img.pixel(x, img.height() / 2) != bg;
    QVERIFY(ink);

    shown.kind = AttentionKind::Decoder;
    grid.setShown(shown);
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
    ui::ShownAttention shown{snap, AttentionKind::Cross, 1, 2};
    grid.setShown(shown);
    grid.setHighlightedQuery(int(snap->tgtTokens.size()) - 1);
    QCOMPARE(grid.layers(), cfg.decoderLayers);
    QCOMPARE(grid.heads(), cfg.heads);
    const auto s = headStats(snap->cross, 1, 3);
    QVERIFY(grid.tileToolTip(1, 3).contains(QStringLiteral("%1 bits").arg(s.meanEntropyBits, 0, 'f', 2)));
    maybeSave(grid, "grid-cross.png");
    shown.kind = AttentionKind::Decoder;
    grid.setShown(shown);
    maybeSave(grid, "grid-decoder.png");
}

QTEST_MAIN(TestAttentionGrid)
#include "test_attentiongrid.moc"
