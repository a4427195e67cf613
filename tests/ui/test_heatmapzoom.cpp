// The detail heatmap zooms (wheel, Ctrl+plus/minus, Ctrl+0 for the whole map) and pans, labels every token
// once there is room for it, shows an overview with a box where the view is, and the grid outlines the
// marked token's row or column in every tile.

#include "tests/support/WindowFixture.h"

#include "ui/attention/TokenStrip.h"
#include "ui/base/QCustomPlotInclude.h"
#include "ui/base/ViewState.h"
#include "ui/views/AttentionGrid.h"
#include "ui/views/HeatmapView.h"
#include "ui/views/ZoomOverview.h"

#include <QSignalSpy>
#include <QWheelEvent>

class TestHeatmapZoom : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { isolateSettings(); }
    void zoomPanAndLabels();
    void gridOutlinesTheMarkedToken();
};

namespace {

// The distance between labelled keys on the x axis.
int labelStep(ui::HeatmapView* heat) {
    const auto ticker = heat->plot()->xAxis->ticker().dynamicCast<QCPAxisTickerText>();
    const auto keys = ticker->ticks().keys();
    return keys.size() > 1 ? int(keys[1] - keys[0]) : 0;
}

} // namespace

void TestHeatmapZoom::zoomPanAndLabels() {
    QString text;
    for (int i = 0; i < 30; ++i)
        text += QStringLiteral("the cat ");
    auto f = openWindow(kDemoModel, text); // 242 tokens in the encoder's map
    QVERIFY(f);
    auto& w = f->window;
    w.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    auto* heat = w.findChild<ui::HeatmapView*>();
    QTest::qWait(50);
    QVERIFY(!heat->isZoomed());
    QVERIFY(!heat->overview()->isVisible());
    const int before = labelStep(heat);
    QVERIFY2(before > 1, qPrintable(QString::number(before))); // 242 labels do not fit: every n-th
    // Ctrl+plus from the Source field, where the focus is after typing.
    f->edit->setFocus();
    for (int i = 0; i < 12; ++i)
        QTest::keyClick(f->edit, Qt::Key_Plus, Qt::ControlModifier);
    QTest::qWait(50);
    QVERIFY(heat->isZoomed());
    const QRectF v = heat->visibleCells();
    qInfo("zoomed to %.1f × %.1f of 242 × 242 cells; labels every %d keys before, every %d now", v.width(),
          v.height(), before, labelStep(heat));
    QVERIFY(v.width() < 242 * 0.1);
    QCOMPARE(labelStep(heat), 1); // every token in view is labelled
    QVERIFY(heat->overview()->isVisible());
    QCOMPARE(heat->overview()->visibleCells(), v); // one cell per token here: no pooling
    // Settled means settled: a label pass that asked for another layout replotted forever (a busy window
    // that a benchmark waited 300 s on).
    QSignalSpy replots(heat->plot(), &QCustomPlot::afterReplot);
    QTest::qWait(300);
    QCOMPARE(replots.count(), 0);
    // A drag pans; dragging far stops at the map's edge.
    auto* plot = heat->plot();
    const QPoint centre = plot->axisRect()->rect().center();
    QTest::mousePress(plot, Qt::LeftButton, {}, centre);
    QTest::mouseMove(plot, centre + QPoint(4000, 4000));
    QTest::mouseRelease(plot, Qt::LeftButton, {}, centre + QPoint(4000, 4000));
    QTest::qWait(20);
    const QRectF panned = heat->visibleCells();
    QVERIFY2(std::abs(panned.left()) < 1e-6 && std::abs(panned.top()) < 1e-6,
             qPrintable(QStringLiteral("%1, %2").arg(panned.left()).arg(panned.top())));
    QVERIFY(std::abs(panned.width() - v.width()) < 1e-6);
    // The wheel zooms out about the pointer.
    QWheelEvent wheel(QPointF(centre), plot->mapToGlobal(QPointF(centre)), QPoint(), QPoint(0, -120),
                      Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
    QCoreApplication::sendEvent(plot, &wheel);
    QVERIFY(heat->visibleCells().width() > v.width());
    // A step keeps the zoom; Ctrl+0 shows the whole map again.
    f->controller->step();
    QVERIFY(f->controller->waitUntilIdle());
    QVERIFY(heat->isZoomed());
    QTest::keyClick(f->edit, Qt::Key_0, Qt::ControlModifier);
    QVERIFY(!heat->isZoomed());
    QVERIFY(!heat->overview()->isVisible());
    const QByteArray shots = qgetenv("ATTNSCOPE_TEST_SHOTS");
    if (!shots.isEmpty()) {
        for (int i = 0; i < 6; ++i)
            heat->zoomBy(0.8);
        QTest::qWait(50);
        QVERIFY(w.grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/zoom.png")));
    }
}

void TestHeatmapZoom::gridOutlinesTheMarkedToken() {
    auto f = openWindow(kDemoModel, QStringLiteral("abcdef"));
    QVERIFY(f);
    auto* grid = f->window.findChild<ui::AttentionGrid*>(QStringLiteral("attentionGrid"));
    auto* strip = f->window.findChild<ui::TokenStrip*>(QStringLiteral("sourceStrip"));
    QTest::qWait(50);
    const QRect tile = grid->tileRect(1, 2);
    const int rowH = tile.height() / 8; // 8 source tokens with <bos> and <eos>
    const QImage plain = grid->grab().toImage();
    QTest::mouseClick(strip, Qt::LeftButton, {}, strip->chipRect(3).center());
    QCOMPARE(grid->markedIndex(), 3);
    const QImage marked = grid->grab().toImage();
    // Row 3's outline in a tile is white now, where a weight's colour was.
    const QPoint edge(tile.center().x(), tile.top() + 3 * rowH);
    QCOMPARE(marked.pixel(edge) & 0xffffff, QColor(Qt::white).rgb() & 0xffffff);
    QVERIFY(plain.pixel(edge) != marked.pixel(edge));
}

QTEST_MAIN(TestHeatmapZoom)
#include "test_heatmapzoom.moc"
