// HeatmapView as a real widget, offscreen: the weights it shows, colour range, token tick labels and their
// thinning, orientation, tooltips, marks, keys, title and the empty-kind message (its cells past kMaxMapSide
// tokens and off the window's thread: test_heatmapcells).

#include "core/analysis/AttentionStats.h"
#include "core/run/Session.h"
#include "core/run/SnapshotCsv.h"
#include "tests/support/SyntheticSnapshots.h"
#include "tests/support/TestModels.h"
#include "ui/base/QCustomPlotInclude.h"
#include "ui/base/TokenText.h"
#include "ui/views/HeatmapView.h"
#include "ui/views/MatrixChart.h"

#include <QLabel>
#include <QSignalSpy>
#include <QToolTip>
#include <QtTest>

#include <algorithm>
#include <cmath>

using namespace core;
using ui::HeatmapView;

Q_DECLARE_METATYPE(core::AttentionKind)

namespace {

std::shared_ptr<const AttentionSnapshot> synthetic(int layers, int heads, int srcLen, int tgtLen) {
    return syntheticSnapshot(layers, heads, srcLen, tgtLen, 11, true);
}

// Lays the plot out at its real size so ticks, thinning and pixels are those a user sees.
void settle(HeatmapView& view) {
    view.plot()->replot();
    QCoreApplication::processEvents();
    view.plot()->replot();
    QCoreApplication::processEvents();
}

void maybeSave(QWidget& w, const char* name) {
    const QByteArray dir = qgetenv("ATTNSCOPE_TEST_SHOTS");
    if (!dir.isEmpty())
        w.grab().save(QString::fromLocal8Bit(dir) + QLatin1Char('/') + QLatin1String(name));
}

// The labelled ticks of an axis; empty if the axis has no text ticker.
QMap<double, QString> ticksOf(QCPAxis* axis) {
    const auto ticker = axis->ticker().dynamicCast<QCPAxisTickerText>();
    return ticker ? ticker->ticks() : QMap<double, QString>();
}

QString titleOf(const HeatmapView& view) {
    auto* title = qobject_cast<QCPTextElement*>(view.plot()->plotLayout()->element(0, 0));
    return title ? title->text() : QString();
}

} // namespace

class TestHeatmapView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void values_data();
    void values();
    void colorRange();
    void tickLabels_data();
    void tickLabels();
    void chartLabelsTurnBeforeTheyThin();
    void thinning();
    void tooltip();
    void marks();
    void keys_data();
    void keys();
    void singleQuery();
    void oneTokenSaysWhy();
    void emptyKind();
};

void TestHeatmapView::values_data() {
    QTest::addColumn<AttentionKind>("kind");
    QTest::addColumn<int>("layer");
    QTest::addColumn<int>("head");
    QTest::newRow("encoder 0/0") << AttentionKind::Encoder << 0 << 0;
    QTest::newRow("encoder 1/3") << AttentionKind::Encoder << 1 << 3;
    QTest::newRow("decoder 1/2") << AttentionKind::Decoder << 1 << 2;
    QTest::newRow("cross 0/1") << AttentionKind::Cross << 0 << 1;
    QTest::newRow("cross mean") << AttentionKind::Cross << 1 << kMeanHead;
    QTest::newRow("decoder mean") << AttentionKind::Decoder << 0 << kMeanHead;
}

void TestHeatmapView::values() {
    QFETCH(AttentionKind, kind);
    QFETCH(int, layer);
    QFETCH(int, head);
    const auto snap = synthetic(2, 4, 7, 5);
    HeatmapView view;
    view.setShown({snap, kind, layer, head});
    const auto& b = snap->block(kind);
    for (int q = 0; q < b.queries; ++q)
        for (int k = 0; k < b.keys; ++k) {
            double expected = 0.0;
            if (head == kMeanHead) {
                for (int h = 0; h < b.heads; ++h)
                    expected += b.at(layer, h, q, k);
                expected /= b.heads;
                QVERIFY(std::abs(view.valueAt(q, k) - expected) < 1e-6);
            } else {
                QCOMPARE(view.valueAt(q, k), double(b.at(layer, head, q, k)));
            }
        }
    QVERIFY(std::isnan(view.valueAt(b.queries, 0)));
    QVERIFY(std::isnan(view.valueAt(0, b.keys)));
    QVERIFY(std::isnan(view.valueAt(-1, 0)));

    const QString kindText = kind == AttentionKind::Cross     ? QStringLiteral("cross-attention")
                             : kind == AttentionKind::Decoder ? QStringLiteral("decoder self-attention")
                                                              : QStringLiteral("encoder self-attention");
    const QString title = titleOf(view);
    QVERIFY2(title.startsWith(kindText), qPrintable(title));
    QVERIFY2(title.contains(QStringLiteral("layer %1").arg(layer)), qPrintable(title));
    QVERIFY2(title.endsWith(head == kMeanHead ? QStringLiteral("mean over heads")
                                              : QStringLiteral("head %1").arg(head)),
             qPrintable(title));
}

void TestHeatmapView::colorRange() {
    const auto snap = synthetic(2, 4, 7, 5);
    HeatmapView view;
    ui::ShownAttention shown{snap, AttentionKind::Cross, 1, 0};
    view.setShown(shown);
    QCOMPARE(view.colorRange(), std::make_pair(0.0, 1.0));
    shown.scale = ui::ScaleMode::PerHead;
    view.setShown(shown);
    const auto& b = snap->cross;
    const float* w = b.row(1, 0, 0);
    const auto [lo, hi] = std::minmax_element(w, w + b.queries * b.keys);
    QVERIFY(*hi < 1.0f && *lo > 0.0f);
    QCOMPARE(view.colorRange(), std::make_pair(double(*lo), double(*hi)));
    // Another head, another range.
    shown.head = 3;
    view.setShown(shown);
    const float* w3 = b.row(1, 3, 0);
    QCOMPARE(view.colorRange().second, double(*std::max_element(w3, w3 + b.queries * b.keys)));
    // Decoder self-attention: the first row's 1 and the masked 0s would pin every head to [0, 1]; the
    // per-head range covers what the other rows could give.
    shown.kind = AttentionKind::Decoder;
    shown.layer = 0;
    shown.head = 2;
    view.setShown(shown);
    const auto& d = snap->decoder;
    float dlo = 1.0f, dhi = 0.0f;
    for (int q = 1; q < d.queries; ++q)
        for (int k = 0; k <= q; ++k) {
            dlo = std::min(dlo, d.at(0, 2, q, k));
            dhi = std::max(dhi, d.at(0, 2, q, k));
        }
    QVERIFY(dlo > 0.0f && dhi < 1.0f);
    QCOMPARE(view.colorRange(), std::make_pair(double(dlo), double(dhi)));
    shown.scale = ui::ScaleMode::Log;
    view.setShown(shown);
    QCOMPARE(view.colorRange(), std::make_pair(double(ui::kLogScaleFloor), 1.0));
    shown.scale = ui::ScaleMode::Fixed;
    view.setShown(shown);
    QCOMPARE(view.colorRange(), std::make_pair(0.0, 1.0));
}

void TestHeatmapView::tickLabels_data() {
    QTest::addColumn<AttentionKind>("kind");
    QTest::newRow("encoder") << AttentionKind::Encoder;
    QTest::newRow("decoder") << AttentionKind::Decoder;
    QTest::newRow("cross") << AttentionKind::Cross;
}

void TestHeatmapView::tickLabels() {
    QFETCH(AttentionKind, kind);
    const auto snap = synthetic(2, 4, 7, 5);
    HeatmapView view;
    view.resize(800, 600);
    view.setShown({snap, kind});
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    settle(view);

    const auto xt = ticksOf(view.plot()->xAxis);
    const auto yt = ticksOf(view.plot()->yAxis);
    const auto& keys = keyTokens(*snap, kind);
    const auto& queries = queryTokens(*snap, kind);
    QCOMPARE(xt.size(), int(keys.size()));
    QCOMPARE(yt.size(), int(queries.size()));
    for (int k = 0; k < int(keys.size()); ++k)
        QCOMPARE(xt.value(k), ui::tokenDisplayText(keys[std::size_t(k)]));
    for (int q = 0; q < int(queries.size()); ++q)
        QCOMPARE(yt.value(q), ui::tokenDisplayText(queries[std::size_t(q)]));

    // Query 0 is the top row.
    QVERIFY(view.plot()->yAxis->coordToPixel(0) < view.plot()->yAxis->coordToPixel(int(queries.size()) - 1));
    QVERIFY(view.plot()->xAxis->coordToPixel(0) < view.plot()->xAxis->coordToPixel(int(keys.size()) - 1));
    if (kind == AttentionKind::Cross) {
        view.setCurrentQuery(int(queries.size()) - 1);
        view.setMarkedToken(Qt::Vertical, 2);
        settle(view);
        maybeSave(view, "heatmap-cross.png");
    }
}

void TestHeatmapView::thinning() {
    const auto snap = synthetic(1, 2, 200, 120);
    HeatmapView view;
    view.resize(700, 520);
    view.setShown({snap, AttentionKind::Cross});
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    settle(view);
    QCPAxis* axes[] = {view.plot()->xAxis, view.plot()->yAxis};
    const int counts[] = {200, 120};
    const int minGap = QFontMetrics(view.plot()->xAxis->tickLabelFont()).height();
    for (int i = 0; i < 2; ++i) {
        const auto ticks = ticksOf(axes[i]);
        QVERIFY2(ticks.size() > 5 && ticks.size() < counts[i], qPrintable(QString::number(ticks.size())));
        // Neighbouring labels are at least a line of text apart, so they cannot overlap.
        const auto positions = ticks.keys();
        for (int j = 1; j < positions.size(); ++j)
            QVERIFY(std::abs(axes[i]->coordToPixel(positions[j]) - axes[i]->coordToPixel(positions[j - 1])) >=
                    minGap);
        // Every label still names the token at its position.
        for (double p : positions)
            QCOMPARE(ticks.value(p),
                     ui::tokenDisplayText((i == 0 ? snap->srcTokens : snap->tgtTokens)[std::size_t(p)]));
    }
    maybeSave(view, "heatmap-many.png");
    // A larger view shows more labels.
    const int before = int(ticksOf(view.plot()->yAxis).size());
    view.resize(900, 1400);
    settle(view);
    QVERIFY(ticksOf(view.plot()->yAxis).size() > before);
}

void TestHeatmapView::tooltip() {
    const auto snap = synthetic(2, 4, 7, 5);
    HeatmapView view;
    view.resize(800, 600);
    view.setShown({snap, AttentionKind::Cross, 1, 2});
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    settle(view);

    const int q = 3, k = 1;
    const QString tip = view.cellToolTip(q, k);
    const QString qText = ui::tokenDisplayText(snap->tgtTokens[q]);
    const QString kText = ui::tokenDisplayText(snap->srcTokens[k]);
    QVERIFY(kText.contains(QChar(0x2423))); // the source token " w1" shows its space
    QVERIFY2(tip.contains(qText), qPrintable(tip));
    QVERIFY2(tip.contains(kText), qPrintable(tip));
    // A decoder-side row names the token it produces: the next target token.
    const QString next = ui::tokenDisplayText(snap->tgtTokens[q + 1]);
    QVERIFY2(tip.contains(QStringLiteral("produces \u201c%1\u201d").arg(next)), qPrintable(tip));
    const double w = snap->cross.at(1, 2, q, k);
    QVERIFY2(tip.contains(QString::number(w, 'g', 6)), qPrintable(tip));
    QVERIFY(QString::number(w, 'g', 6).size() >= 7); // really six significant digits, not a rounded 0.1
    QVERIFY(view.cellToolTip(5, 0).isEmpty());

    // Moving the mouse over the cell shows that text.
    QCustomPlot* plot = view.plot();
    const QPoint at(int(plot->xAxis->coordToPixel(k)), int(plot->yAxis->coordToPixel(q)));
    QTest::mouseMove(plot, at);
    QTRY_VERIFY(QToolTip::isVisible());
    QCOMPARE(QToolTip::text(), tip);
    const QPoint other(int(plot->xAxis->coordToPixel(4)), int(plot->yAxis->coordToPixel(0)));
    QTest::mouseMove(plot, other);
    QTRY_COMPARE(QToolTip::text(), view.cellToolTip(0, 4));
    QToolTip::hideText();
    QVERIFY(!plot->toolTip().isEmpty());
}

void TestHeatmapView::marks() {
    const auto snap = synthetic(2, 4, 7, 5);
    HeatmapView view;
    view.setShown({snap, AttentionKind::Cross});
    QCustomPlot* plot = view.plot();
    QCOMPARE(plot->itemCount(), 2);
    auto* mark = qobject_cast<QCPItemRect*>(plot->item(0));
    auto* current = qobject_cast<QCPItemRect*>(plot->item(1));
    QVERIFY(mark && current);
    QVERIFY(!mark->visible() && !current->visible());

    view.setMarkedToken(Qt::Horizontal, 2); // a query row: all keys
    QVERIFY(mark->visible());
    QCOMPARE(mark->topLeft->coords(), QPointF(-0.5, 1.5));
    QCOMPARE(mark->bottomRight->coords(), QPointF(6.5, 2.5));
    view.setMarkedToken(Qt::Vertical, 4); // a key column: all queries
    QCOMPARE(mark->topLeft->coords(), QPointF(3.5, -0.5));
    QCOMPARE(mark->bottomRight->coords(), QPointF(4.5, 4.5));
    view.setMarkedToken(Qt::Vertical, 7); // no such key
    QVERIFY(!mark->visible());
    view.setMarkedToken(Qt::Vertical, -1);
    QVERIFY(!mark->visible());

    view.setCurrentQuery(3);
    QVERIFY(current->visible());
    QCOMPARE(current->topLeft->coords(), QPointF(-0.5, 2.5));
    QCOMPARE(current->bottomRight->coords(), QPointF(6.5, 3.5));
    QVERIFY(current->pen().style() != mark->pen().style() || current->pen().color() != mark->pen().color());
    view.setCurrentQuery(-1);
    QVERIFY(!current->visible());
}

void TestHeatmapView::keys_data() {
    addNavigationKeyRows();
}

void TestHeatmapView::keys() {
    QFETCH(int, key);
    QFETCH(int, dLayer);
    QFETCH(int, dHead);
    HeatmapView view;
    view.setShown({synthetic(2, 4, 7, 5)});
    QCOMPARE(view.focusPolicy(), Qt::StrongFocus);
    QSignalSpy spy(&view, &HeatmapView::navigate);
    QTest::keyClick(&view, Qt::Key(key));
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.at(0).at(0).toInt(), dLayer);
    QCOMPARE(spy.at(0).at(1).toInt(), dHead);
    QTest::keyClick(&view, Qt::Key_A);
    QCOMPARE(spy.count(), 1);
}

void TestHeatmapView::singleQuery() {
    // The first decoding step has one query row; it must be painted, not collapse to nothing.
    const auto snap = synthetic(1, 2, 6, 1);
    HeatmapView view;
    view.resize(700, 400);
    view.setShown({snap, AttentionKind::Cross});
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    settle(view);
    maybeSave(view, "heatmap-one-query.png");
    const QImage img = view.plot()->toPixmap().toImage();
    QCustomPlot* plot = view.plot();
    QCPColorGradient g = ui::ColorMap::byName(QString()).gradient();
    for (int k = 0; k < 6; ++k) {
        const QPoint p(int(plot->xAxis->coordToPixel(k)), int(plot->yAxis->coordToPixel(0)));
        const QColor got(img.pixel(p));
        const QColor want(g.color(snap->cross.at(0, 0, 0, k), QCPRange(0, 1)));
        QVERIFY2(std::abs(got.red() - want.red()) <= 2 && std::abs(got.green() - want.green()) <= 2 &&
                     std::abs(got.blue() - want.blue()) <= 2,
                 qPrintable(QStringLiteral("key %1: %2 vs %3").arg(k).arg(got.name(), want.name())));
    }
}

void TestHeatmapView::oneTokenSaysWhy() {
    // The decoder before its first step: one query and one key. A single cell filling the pane tells
    // nothing; a sentence says why, and a second token brings the map back.
    HeatmapView view;
    view.resize(700, 400);
    const auto first = synthetic(1, 2, 6, 1);
    view.setShown({first, AttentionKind::Decoder});
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const QString bos = ui::tokenDisplayText(first->tgtTokens.front());
    qInfo("one token: \"%s\"", qPrintable(view.emptyMessage()));
    QVERIFY2(view.emptyMessage().contains(QStringLiteral("\u201c%1\u201d").arg(bos)), qPrintable(bos));
    QVERIFY(view.emptyMessage().contains(QLatin1String("weight 1")));
    QVERIFY(!view.plot()->isVisible());
    QCOMPARE(view.valueAt(0, 0), double(first->decoder.at(0, 0, 0, 0))); // the cell is still there to read
    maybeSave(view, "heatmap-one-token.png");
    // Cross-attention of the same step has six keys: drawn.
    view.setShown({first, AttentionKind::Cross});
    QVERIFY(view.emptyMessage().isEmpty());
    view.setShown({synthetic(1, 2, 6, 2), AttentionKind::Decoder});
    QVERIFY(view.emptyMessage().isEmpty());
    QVERIFY(view.plot()->isVisible());
}

void TestHeatmapView::emptyKind() {
    HeatmapView view;
    QVERIFY(!view.emptyMessage().isEmpty());

    auto cfg = smallConfig(Architecture::DecoderOnly, PositionalEncoding::Rope);
    Session session(randomModel(cfg));
    session.analyze("hello");
    session.step();
    auto snap = std::make_shared<const AttentionSnapshot>(session.snapshot());
    view.resize(600, 400);
    ui::ShownAttention shown{snap, AttentionKind::Cross};
    view.setShown(shown);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QCOMPARE(view.emptyMessage(), QStringLiteral("No cross-attention: this model has no encoder"));
    auto* label = view.findChild<QLabel*>(QStringLiteral("emptyMessage"));
    QVERIFY(label && label->isVisible());
    QVERIFY(!view.plot()->isVisible());
    QVERIFY(std::isnan(view.valueAt(0, 0)));
    shown.kind = AttentionKind::Encoder;
    view.setShown(shown);
    QVERIFY(view.emptyMessage().contains(QLatin1String("no encoder")));

    shown.kind = AttentionKind::Decoder;
    shown.layer = 1;
    shown.head = 3;
    view.setShown(shown);
    QVERIFY(view.emptyMessage().isEmpty());
    QVERIFY(view.plot()->isVisible());
    QCOMPARE(view.valueAt(1, 0), double(snap->decoder.at(1, 3, 1, 0)));
    QCOMPARE(view.valueAt(0, 1), 0.0); // causal
    view.setCurrentQuery(int(snap->tgtTokens.size()) - 1);
    settle(view);
    maybeSave(view, "heatmap-decoder-only.png");
}

void TestHeatmapView::chartLabelsTurnBeforeTheyThin() {
    // The charts of Rollout, Inside and Compare: 12 keys of long words at ~70 px a cell all keep their
    // label (turned a quarter, as the detail heatmap does), where they were thinned to every other one;
    // 1,000 keys in the same width are thinned so that none overlap.
    ui::MatrixChart chart(QStringLiteral("test"));
    chart.resize(1000, 500);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    const auto ticksOf = [&](int n, const QString& word) {
        core::Matrix m(4, n);
        QStringList cols;
        for (int c = 0; c < n; ++c)
            cols << QStringLiteral("%1%2").arg(word).arg(c);
        chart.setMatrix(m, {}, cols, ui::MatrixChart::Colours::Weights);
        chart.plot()->replot();
        QCoreApplication::processEvents();
        chart.plot()->replot();
        auto ticker = chart.plot()->xAxis->ticker().dynamicCast<QCPAxisTickerText>();
        return ticker ? ticker->ticks().size() : -1;
    };
    const auto cellPx = [&](int n) { return chart.plot()->axisRect()->width() / double(n); };
    const int twelve = ticksOf(12, QStringLiteral("\u2581understanding"));
    qInfo("12 keys at %.0f px a cell: %d labels, turned %.0f°", cellPx(12), twelve,
          chart.plot()->xAxis->tickLabelRotation());
    QCOMPARE(twelve, 12);
    QCOMPARE(chart.plot()->xAxis->tickLabelRotation(), -90.0);
    const int many = ticksOf(1000, QStringLiteral("w"));
    const QFontMetrics fm(chart.plot()->xAxis->tickLabelFont());
    qInfo("1,000 keys at %.2f px a cell: %d labels", cellPx(1000), many);
    QVERIFY(many > 1 && many < 1000);
    QVERIFY(cellPx(1000) * (1000.0 / many) >= fm.height()); // no two turned labels closer than their height
}

QTEST_MAIN(TestHeatmapView)
#include "test_heatmapview.moc"
