// The detail heatmap's cells (HeatmapCells): a long side max-pooled to kMaxMapSide cells with the grid's
// bins, every weight still in the tooltips; and a large block computed off the window's thread to the very
// cells, range and weights the window's thread computes.

#include "core/analysis/MaxPool.h"
#include "tests/support/SyntheticSnapshots.h"
#include "ui/base/QCustomPlotInclude.h"
#include "ui/views/HeatmapView.h"

#include <QSignalSpy>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <random>

using namespace core;
using ui::HeatmapView;

namespace {

QString titleOf(const HeatmapView& view) {
    auto* title = qobject_cast<QCPTextElement*>(view.plot()->plotLayout()->element(0, 0));
    return title ? title->text() : QString();
}

} // namespace

class TestHeatmapCells : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void longSidesPooled();
    void largeBlocksOffThread();
};

// Past kMaxMapSide tokens a side is max-pooled with the grid's bins (core::binStart), and the map's cells
// are equal, n / kMaxMapSide tokens wide, covering exactly the tokens' coordinates [-0.5, n - 0.5].
void TestHeatmapCells::longSidesPooled() {
    constexpr int queries = 700, keys = 1000, side = HeatmapView::kMaxMapSide;
    auto snap = std::make_shared<AttentionSnapshot>();
    for (int i = 0; i < keys; ++i)
        snap->srcTokens.push_back(Token{10 + i, "s" + std::to_string(i), false, false});
    for (int i = 0; i < queries; ++i)
        snap->tgtTokens.push_back(Token{20 + i, "t" + std::to_string(i), false, false});
    std::mt19937 rng(5);
    fillBlock(snap->cross, 1, 2, queries, keys, false, rng);
    snap->cross.data.mutableData()[snap->cross.index(0, 1, 333, 777)] = 1.0f; // a lone strong weight
    HeatmapView view;
    view.resize(800, 700);
    view.setShown({snap, AttentionKind::Cross, 0, 1});
    auto* map = qobject_cast<QCPColorMap*>(view.plot()->plottable(0));
    QVERIFY(map);
    QCPColorMapData* cells = map->data();
    QCOMPARE(cells->keySize(), side);
    QCOMPARE(cells->valueSize(), side);
    const auto covers = [](const QCPRange& centres, int tokens) {
        const double half = 0.5 * centres.size() / (side - 1);
        return std::abs(centres.lower - half + 0.5) < 1e-9 &&
               std::abs(centres.upper + half - (tokens - 0.5)) < 1e-9;
    };
    QVERIFY2(covers(cells->keyRange(), keys), qPrintable(QString::number(cells->keyRange().lower)));
    QVERIFY2(covers(cells->valueRange(), queries), qPrintable(QString::number(cells->valueRange().lower)));
    const auto& b = snap->cross;
    for (int r = 0; r < side; ++r)
        for (int c = 0; c < side; ++c) {
            float best = 0.0f;
            for (int q = binStart(r, side, queries); q < binStart(r + 1, side, queries); ++q)
                for (int k = binStart(c, side, keys); k < binStart(c + 1, side, keys); ++k)
                    best = std::max(best, b.at(0, 1, q, k));
            QCOMPARE(cells->cell(c, r), double(best));
        }
    const auto binOf = [](int token, int tokens) {
        int bin = 0;
        while (binStart(bin + 1, side, tokens) <= token)
            ++bin;
        return bin;
    };
    QCOMPARE(cells->cell(binOf(777, keys), binOf(333, queries)), 1.0);
    // The tooltips still read every weight.
    QCOMPARE(view.valueAt(333, 777), 1.0);
    QCOMPARE(view.valueAt(699, 999), double(b.at(0, 1, 699, 999)));
}

void TestHeatmapCells::largeBlocksOffThread() {
    const auto snap = syntheticSnapshot(2, 4, 7, 5, 11, true);
    HeatmapView here, away;
    away.setInPlaceWeights(0); // every block off the window's thread
    QSignalSpy busy(&away, &HeatmapView::busyChanged);
    for (auto scale : {ui::ScaleMode::Fixed, ui::ScaleMode::PerHead, ui::ScaleMode::Log}) {
        ui::ShownAttention shown{snap, AttentionKind::Cross, 1, 0};
        shown.scale = scale;
        away.setShown(shown);
        shown.head = kMeanHead; // asked for before the first is done: only the newest is shown
        away.setShown(shown);
        here.setShown(shown);
        QVERIFY(away.busy()); // nothing computed on this thread yet
        QTRY_VERIFY(!away.busy());
        QVERIFY2(titleOf(away).endsWith(QStringLiteral("mean over heads")), qPrintable(titleOf(away)));
        QCOMPARE(away.colorRange(), here.colorRange());
        auto* a = qobject_cast<QCPColorMap*>(away.plot()->plottable(0))->data();
        auto* h = qobject_cast<QCPColorMap*>(here.plot()->plottable(0))->data();
        QCOMPARE(a->keySize(), h->keySize());
        QCOMPARE(a->valueSize(), h->valueSize());
        for (int r = 0; r < h->valueSize(); ++r)
            for (int c = 0; c < h->keySize(); ++c) {
                const double x = a->cell(c, r), y = h->cell(c, r);
                QVERIFY(x == y || (std::isnan(x) && std::isnan(y)));
            }
        const auto& b = snap->cross;
        for (int q = 0; q < b.queries; ++q)
            for (int k = 0; k < b.keys; ++k)
                QCOMPARE(away.valueAt(q, k), here.valueAt(q, k));
    }
    QVERIFY(busy.count() >= 6); // on and off for each scale
}

QTEST_MAIN(TestHeatmapCells)
#include "test_heatmapcells.moc"
