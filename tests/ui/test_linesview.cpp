// The lines view: the shown head as lines from keys (left) to queries (right), opacity by weight; every
// head of the layer in colours with the mean selected; a hovered token keeps only its lines.

#include "tests/support/WindowFixture.h"

#include "ui/base/ViewState.h"
#include "ui/run/RunResult.h"
#include "ui/views/LinesView.h"

#include <QCheckBox>

class TestLinesView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { isolateSettings(); }
    void linesFollowTheWeights();
};

namespace {

int weightsAtLeast(const core::AttentionBlock& b, int layer, int head, float floor, int row = -1,
                   int column = -1) {
    int n = 0;
    for (int q = 0; q < b.queries; ++q)
        for (int k = 0; k < b.keys; ++k)
            if ((row < 0 || q == row) && (column < 0 || k == column) && b.at(layer, head, q, k) >= floor)
                ++n;
    return n;
}

} // namespace

void TestLinesView::linesFollowTheWeights() {
    auto f = openWindow(QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/en-es"),
                        QStringLiteral("The old man walked to the small white house."));
    QVERIFY(f);
    for (int i = 0; i < 6; ++i)
        f->controller->step();
    QVERIFY(f->controller->waitUntilIdle());
    auto& w = f->window;
    w.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    w.viewState()->setKind(core::AttentionKind::Cross);
    w.viewState()->setSelection(1, 2);
    auto* lines = w.findChild<ui::LinesView*>(QStringLiteral("linesView"));
    QVERIFY(lines && !lines->isVisible());
    // Ctrl+Shift+L from the Source field shows the lines in place of the heatmap.
    f->edit->setFocus();
    QTest::keyClick(f->edit, Qt::Key_L, Qt::ControlModifier | Qt::ShiftModifier);
    QVERIFY(lines->isVisible());
    QVERIFY(w.findChild<QCheckBox*>(QStringLiteral("linesCheck"))->isChecked());
    const auto& b = f->controller->current()->snapshot->cross;
    const float floor = ui::LinesView::kMinWeight;
    QCOMPARE(lines->headCount(), 1);
    QCOMPARE(lines->lineCount(), weightsAtLeast(b, 1, 2, floor));
    // The mouse on a query token keeps its row's lines; on a key token, its column's.
    QTest::mouseMove(lines, lines->tokenCenter(true, 3));
    QCOMPARE(lines->lineCount(), weightsAtLeast(b, 1, 2, floor, 3));
    QTest::mouseMove(lines, lines->tokenCenter(false, 2));
    QCOMPARE(lines->lineCount(), weightsAtLeast(b, 1, 2, floor, -1, 2));
    lines->isolate(false, -1);
    // The mean: every head of the layer, each in its colour.
    w.viewState()->setSelection(1, core::kMeanHead);
    QCOMPARE(lines->headCount(), 4);
    int all = 0;
    for (int h = 0; h < 4; ++h)
        all += weightsAtLeast(b, 1, h, floor);
    QCOMPARE(lines->lineCount(), all);
    qInfo("cross-attention layer 1: %d lines for head 2, %d for the 4 heads", weightsAtLeast(b, 1, 2, floor),
          all);
    const QByteArray shots = qgetenv("ATTNSCOPE_TEST_SHOTS");
    if (!shots.isEmpty()) {
        w.viewState()->setSelection(1, 2);
        QTest::mouseMove(lines, lines->tokenCenter(true, 4));
        QVERIFY(w.grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/lines.png")));
        w.viewState()->setSelection(1, core::kMeanHead);
        lines->isolate(false, -1);
        QVERIFY(lines->grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/lines-heads.png")));
    }
    // And back to the heatmap.
    QTest::keyClick(f->edit, Qt::Key_L, Qt::ControlModifier | Qt::ShiftModifier);
    QVERIFY(!lines->isVisible());
}

QTEST_MAIN(TestLinesView)
#include "test_linesview.moc"
