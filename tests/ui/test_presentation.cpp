// The presentation mode (F11 or View ▸ Presentation): full screen, larger fonts, the chrome out of sight,
// the step controls and every shortcut kept; F11 or Escape gives the window back as it was.

#include "tests/support/WindowFixture.h"

#include "ui/attention/AttentionPage.h"
#include "ui/attention/CandidatesChart.h"
#include "ui/base/QCustomPlotInclude.h"
#include "ui/base/ViewState.h"
#include "ui/run/RunResult.h"
#include "ui/views/AttentionGrid.h"

#include <QAction>
#include <QMenuBar>
#include <QSplitter>
#include <QStatusBar>
#include <QTabBar>

class TestPresentation : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { isolateSettings(); }
    void enterUseAndLeave();
    void gridGrowsForTheRoom();
    void closingLeavesFirst();
    void everyShortcutIsItsOwn();
};

namespace {

// en-es on a sentence, the window active so that its shortcuts reach it; null when anything failed.
std::unique_ptr<WindowFixture> openActive() {
    auto f = openWindow(QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/en-es"),
                        QStringLiteral("The old man walked to the small white house."));
    if (!f)
        return f;
    f->window.activateWindow();
    if (!QTest::qWaitForWindowActive(&f->window))
        return nullptr;
    return f;
}

// Offscreen there is no screen to fill: the window is given a projector's size.
void projectorSize(QWidget& w) {
    w.resize(1600, 900);
    QTest::qWait(50);
}

// F11 from the Source field, then the projector's size once the full-screen geometry has landed.
void enterAtProjectorSize(WindowFixture& f) {
    QTest::keyClick(f.edit, Qt::Key_F11);
    QTest::qWait(50);
    projectorSize(f.window);
}

// Empty when each pane of `now` is within `tolerance` px of `then`, else which one is not.
QString panesMoved(const QList<int>& then, const QList<int>& now, int tolerance) {
    if (then.size() != now.size())
        return QStringLiteral("%1 panes, then %2").arg(then.size()).arg(now.size());
    for (int i = 0; i < then.size(); ++i)
        if (std::abs(now[i] - then[i]) > tolerance)
            return QStringLiteral("pane %1: %2 px, then %3 px").arg(i).arg(then[i]).arg(now[i]);
    return {};
}

} // namespace

void TestPresentation::enterUseAndLeave() {
    auto f = openActive();
    QVERIFY(f);
    auto& w = f->window;
    auto* tabBar = w.findChild<QTabBar*>();
    auto* controls = w.findChild<QWidget*>(QStringLiteral("attentionControls"));
    QVERIFY(tabBar && controls);
    const double fontBefore = w.font().pointSizeF();
    // From the Source field, where a user's focus is after typing.
    f->edit->setFocus();
    QTest::keyClick(f->edit, Qt::Key_F11);
    QVERIFY(w.windowState() & Qt::WindowFullScreen);
    QCOMPARE(w.font().pointSizeF(), fontBefore * 1.6);
    QVERIFY(!tabBar->isVisible() && !controls->isVisible() && !w.statusBar()->isVisible());
    QCOMPARE(w.menuBar()->height(), 0);
    QVERIFY(w.findChild<QAction*>(QStringLiteral("presentationAction"))->isChecked());
    // The step controls and the shortcuts of the collapsed menus still work.
    QVERIFY(w.findChild<QWidget*>(QStringLiteral("decodeStatus"))->isVisible());
    QTest::keyClick(f->edit, Qt::Key_Right, Qt::ControlModifier);
    QVERIFY(f->controller->waitUntilIdle());
    QCOMPARE(f->controller->current()->step, 1);
    QTest::keyClick(f->edit, Qt::Key_3, Qt::ControlModifier);
    QCOMPARE(w.viewState()->kind(), core::AttentionKind::Cross);
    const QByteArray shots = qgetenv("ATTNSCOPE_TEST_SHOTS");
    if (!shots.isEmpty()) {
        projectorSize(w);
        QTest::qWait(50); // the charts' queued replots
        QVERIFY(w.grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/presentation.png")));
    }
    // Escape leaves, and everything comes back.
    QTest::keyClick(f->edit, Qt::Key_Escape);
    QVERIFY(!(w.windowState() & Qt::WindowFullScreen));
    QCOMPARE(w.font().pointSizeF(), fontBefore);
    QVERIFY(tabBar->isVisible() && controls->isVisible() && w.statusBar()->isVisible());
    QVERIFY(w.menuBar()->height() > 0);
    // F11 toggles it as well.
    QTest::keyClick(f->edit, Qt::Key_F11);
    QVERIFY(w.windowState() & Qt::WindowFullScreen);
    QTest::keyClick(f->edit, Qt::Key_F11);
    QVERIFY(!(w.windowState() & Qt::WindowFullScreen));
}

void TestPresentation::gridGrowsForTheRoom() {
    // On a projector the grid's tiles are read from across a room: the mode gives the grid about half the
    // width, and leaving gives the panes back as they were.
    auto f = openActive();
    QVERIFY(f);
    auto& w = f->window;
    projectorSize(w);
    auto* splitter = w.findChild<QSplitter*>(QStringLiteral("mainSplitter"));
    auto* grid = qobject_cast<ui::AttentionGrid*>(splitter ? splitter->widget(0) : nullptr);
    QVERIFY(splitter && grid);
    const QList<int> before = splitter->sizes();
    const int tileBefore = grid->tileRect(0, 0).width();
    enterAtProjectorSize(*f);
    const double share = double(grid->width()) / splitter->width();
    const int tileDuring = grid->tileRect(0, 0).width();
    qInfo("grid %d of %d px (%.2f), tiles %d px → %d px", grid->width(), splitter->width(), share, tileBefore,
          tileDuring);
    QVERIFY2(share > 0.44 && share < 0.52, qPrintable(QString::number(share)));
    QVERIFY(tileDuring >= tileBefore * 1.3);
    // The candidates' axis at 1.6 × the font: tick labels apart, every line of its label inside the chart.
    auto* chart = qobject_cast<ui::CandidatesChart*>(splitter->widget(2));
    QVERIFY(chart);
    auto* plot = chart->plot();
    plot->replot(); // what the queued replots would have drawn
    plot->replot();
    const QFontMetrics tickFm(plot->xAxis->tickLabelFont());
    const auto ticks = plot->xAxis->tickVector();
    const auto labels = plot->xAxis->tickVectorLabels();
    QVERIFY(ticks.size() >= 2);
    for (int i = 1; i < ticks.size(); ++i) {
        const double gap = plot->xAxis->coordToPixel(ticks[i]) - plot->xAxis->coordToPixel(ticks[i - 1]);
        const double needed =
            (tickFm.horizontalAdvance(labels[i]) + tickFm.horizontalAdvance(labels[i - 1])) / 2.0;
        QVERIFY2(gap > needed, qPrintable(QStringLiteral("ticks %1 and %2: %3 px apart, labels need %4")
                                              .arg(labels[i - 1], labels[i])
                                              .arg(gap)
                                              .arg(needed)));
    }
    const QFontMetrics labelFm(plot->xAxis->labelFont());
    const int centre = plot->axisRect()->center().x();
    for (const QString& line : plot->xAxis->label().split(QLatin1Char('\n'))) {
        const int half = labelFm.horizontalAdvance(line) / 2;
        QVERIFY2(centre - half >= 0 && centre + half <= plot->width(), qPrintable(line));
    }
    qInfo("candidates: %d ticks, axis label on %d lines in %d px", int(ticks.size()),
          int(plot->xAxis->label().count(QLatin1Char('\n')) + 1), plot->width());
    QTest::keyClick(f->edit, Qt::Key_Escape);
    projectorSize(w);
    const auto moved = panesMoved(before, splitter->sizes(), 1);
    QVERIFY2(moved.isEmpty(), qPrintable(moved));
}

void TestPresentation::closingLeavesFirst() {
    // Quitting in the mode saves the desk's panes, not the room's: the mode is left before the window saves.
    auto f = openActive();
    QVERIFY(f);
    auto& w = f->window;
    projectorSize(w);
    auto* splitter = w.findChild<QSplitter*>(QStringLiteral("mainSplitter"));
    QVERIFY(splitter);
    const QList<int> desk = splitter->sizes();
    enterAtProjectorSize(*f);
    QVERIFY(!panesMoved(desk, splitter->sizes(), 2).isEmpty());
    w.close();
    QVERIFY(!w.findChild<QAction*>(QStringLiteral("presentationAction"))->isChecked());
    const auto moved = panesMoved(desk, splitter->sizes(), 2); // the desk's, then what the window saved
    QVERIFY2(moved.isEmpty(), qPrintable(moved));
}

void TestPresentation::everyShortcutIsItsOwn() {
    // Two actions on one key make Qt run neither (Export Figure once shared Ctrl+Shift+E).
    auto f = openWindow(kDemoModel, QString());
    QVERIFY(f);
    QHash<QString, QString> owner;
    int keys = 0;
    for (auto* a : f->window.findChildren<QAction*>())
        for (const auto& key : a->shortcuts()) {
            const QString k = key.toString();
            QVERIFY2(!owner.contains(k) || owner[k] == a->text(),
                     qPrintable(QStringLiteral("%1: %2 and %3").arg(k, owner[k], a->text())));
            owner[k] = a->text();
            ++keys;
        }
    qInfo("%d shortcuts, each on one action", keys);
    QVERIFY(keys > 20);
}

QTEST_MAIN(TestPresentation)
#include "test_presentation.moc"
