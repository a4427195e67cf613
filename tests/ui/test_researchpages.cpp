// The window past raw weights, used as a user uses it: Ctrl+Shift+V from the Source field colours by weight ×
// value (the detail heatmap shows core::valueWeighted's numbers, its tooltip both); Ctrl+click on a tile
// switches a head off (the run is the one core gives with that head off, the tile is crossed out, the
// Ablation page gives the KL and both outputs) and Ctrl+Shift+H switches them all on; the sweep fills its
// table and a double-click switches that head off; Alt+7 shows rollout and flow equal to core's, and a flow
// can be cancelled; Ctrl+Shift+P pins a run and the Compare page shows B − A.

#include "tests/support/SkipReport.h"
#include "tests/support/WindowFixture.h"

#include "core/analysis/AblationEffects.h"
#include "core/analysis/AttentionFlow.h"
#include "core/analysis/Rollout.h"
#include "core/analysis/ValueWeighting.h"
#include "core/run/Session.h"
#include "ui/attention/AttentionPage.h"
#include "ui/base/QCustomPlotInclude.h"
#include "ui/base/ViewState.h"
#include "ui/export/AttentionFigure.h"
#include "ui/research/AblationPage.h"
#include "ui/research/ComparePage.h"
#include "ui/research/ResearchPages.h"
#include "ui/research/RolloutPage.h"
#include "ui/research/SweepTable.h"
#include "ui/views/AttentionGrid.h"
#include "ui/views/HeatmapView.h"
#include "ui/views/MatrixChart.h"

#include <QCheckBox>
#include <QComboBox>
#include <QPushButton>
#include <QTableView>
#include <QTableWidget>
#include <QtTest>

namespace {

const QString kReverse = QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/reverse");
const QString kLanguageModel = QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/tiny-lm");

bool waitFor(const std::function<bool()>& done) {
    return QTest::qWaitFor(done, 60000);
}

} // namespace

class TestResearchPages : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { isolateSettings(); }
    void valueWeightedFromTheKeyboard();
    void ctrlClickSwitchesAHeadOff();
    void sweepAndChoose();
    void rolloutAndFlow();
    void pinAndCompare();
    void compareFollowsTheAttentionPage();
};

void TestResearchPages::valueWeightedFromTheKeyboard() {
    auto f = openWindow(kReverse, QStringLiteral("abcdef"));
    QVERIFY(f);
    auto* state = f->window.viewState();
    state->setKind(core::AttentionKind::Cross);
    state->setSelection(1, 2);
    f->edit->setFocus();
    QTest::keyClick(f->edit, Qt::Key_V, Qt::ControlModifier | Qt::ShiftModifier);
    QVERIFY(f->controller->waitUntilIdle());
    QVERIFY(state->valueWeighted());
    const auto* page = f->window.findChild<ui::AttentionPage*>();
    QVERIFY(page->findChild<QCheckBox*>(QStringLiteral("valueWeightedCheck"))->isChecked());
    const auto snap = f->controller->current()->snapshot;
    QVERIFY(!snap->crossWeighted.empty());
    const auto expected = core::valueWeighted(snap->cross, snap->crossNorms);
    auto* heat = page->findChild<ui::HeatmapView*>();
    double worst = 0.0;
    for (int q = 0; q < expected.queries; ++q)
        for (int k = 0; k < expected.keys; ++k)
            worst = std::max(worst, std::abs(heat->valueAt(q, k) - expected.at(1, 2, q, k)));
    qInfo("detail heatmap against core::valueWeighted: largest difference %.3g", worst);
    QCOMPARE(worst, 0.0);
    const auto tip = heat->cellToolTip(0, 3); // <bos>, the one query before the first step
    QVERIFY2(tip.contains(QStringLiteral("weight ")) && tip.contains(QStringLiteral("\u2016v W_O\u2016")),
             qPrintable(tip));
    // An exported figure says what it is coloured by; the numbers exported stay the weights.
    const auto& shown = state->shown();
    QVERIFY2(ui::AttentionFigure::title(shown).contains(QStringLiteral("weight \u00d7 value")),
             qPrintable(ui::AttentionFigure::title(shown)));
    QVERIFY(ui::AttentionFigure::head(shown).barLabel.contains(QStringLiteral("\u2016v W_O\u2016")));
    // Off again: the weights themselves.
    QTest::keyClick(f->edit, Qt::Key_V, Qt::ControlModifier | Qt::ShiftModifier);
    QVERIFY(f->controller->waitUntilIdle());
    QVERIFY(!state->valueWeighted());
    QVERIFY(!ui::AttentionFigure::title(state->shown()).contains(QStringLiteral("value")));
    QCOMPARE(ui::AttentionFigure::head(state->shown()).barLabel, QStringLiteral("weight"));
    QCOMPARE(heat->valueAt(0, 3), double(f->controller->current()->snapshot->cross.at(1, 2, 0, 3)));
}

void TestResearchPages::ctrlClickSwitchesAHeadOff() {
    auto f = openWindow(kReverse, QStringLiteral("abcdefgh"));
    QVERIFY(f);
    auto* state = f->window.viewState();
    state->setKind(core::AttentionKind::Cross);
    f->controller->step();
    QVERIFY(f->controller->waitUntilIdle());
    auto* grid = f->window.findChild<ui::AttentionGrid*>(QStringLiteral("attentionGrid"));
    for (int h = 0; h < 4; ++h)
        QTest::mouseClick(grid, Qt::LeftButton, Qt::ControlModifier, grid->tileRect(1, h).center());
    QVERIFY(f->controller->waitUntilIdle());
    const auto r = f->controller->current();
    QCOMPARE(QString::fromStdString(r->ablation.text()),
             QStringLiteral("cross 1:0, cross 1:1, cross 1:2, cross 1:3"));
    QCOMPARE(state->layer(), 0); // a Ctrl+click switches, it does not select
    QVERIFY(grid->tileToolTip(1, 2).contains(QStringLiteral("Switched off")));
    // The window's run is core's with the same heads off, at the same step.
    core::Session session(r->model);
    session.setAblation(r->ablation);
    session.analyze("abcdefgh");
    session.step();
    QCOMPARE(r->snapshot->nextTokenLogProbs, session.snapshot().nextTokenLogProbs);
    QCOMPARE(r->step, 1);
    // The Ablation page, reached with Alt+8 from the Source field.
    f->edit->setFocus();
    QTest::keyClick(f->edit, Qt::Key_8, Qt::AltModifier);
    auto* page = f->window.findChild<ui::AblationPage*>();
    QVERIFY(page->isVisible());
    const auto expected = core::nextTokenEffect(session);
    QVERIFY2(page->klText().contains(QString::number(expected.kl, 'g', 4)), qPrintable(page->klText()));
    QCOMPARE(page->changes()->rowCount(), 5);
    QVERIFY(page->outputsText().contains(QStringLiteral("heads off")));
    QVERIFY(r->effect && r->effect->firstDifference >= 0);
    // Every head back on from the keyboard, wherever the focus is.
    QTest::keyClick(f->edit, Qt::Key_H, Qt::ControlModifier | Qt::ShiftModifier);
    QVERIFY(f->controller->waitUntilIdle());
    QVERIFY(f->controller->current()->ablation.empty());
    QVERIFY(!f->controller->current()->effect);
}

void TestResearchPages::sweepAndChoose() {
    auto f = openWindow(kReverse, QStringLiteral("abc"));
    QVERIFY(f);
    f->window.showPage(ui::MainWindow::Page::Ablation);
    auto* sweep = f->window.findChild<ui::SweepTable*>();
    QTest::mouseClick(sweep->startButton(), Qt::LeftButton);
    QVERIFY(waitFor([sweep] { return !sweep->busy(); }));
    QCOMPARE(int(sweep->effects().size()), 24);
    auto* view = sweep->view();
    QCOMPARE(view->model()->rowCount(), 24);
    QVERIFY2(sweep->status().contains(QStringLiteral("24 heads")), qPrintable(sweep->status()));
    // Sorted by mean KL, largest first; a double-click switches the top head off alone.
    const auto top = view->model()->index(0, ui::SweepTable::MeanKl).data(Qt::UserRole + 1).toDouble();
    for (int r = 1; r < 24; ++r)
        QVERIFY(view->model()->index(r, ui::SweepTable::MeanKl).data(Qt::UserRole + 1).toDouble() <= top);
    const QRect cell = view->visualRect(view->model()->index(0, ui::SweepTable::Kind));
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, cell.center());
    QTest::mouseDClick(view->viewport(), Qt::LeftButton, {}, cell.center());
    QVERIFY(f->controller->waitUntilIdle());
    QCOMPARE(int(f->controller->viewState()->headsOff().size()), 1);
    const auto chosen = f->controller->viewState()->headsOff().heads().front();
    QCOMPARE(QString::fromUtf8(core::toString(chosen.kind)),
             view->model()->index(0, ui::SweepTable::Kind).data().toString());
}

void TestResearchPages::rolloutAndFlow() {
    auto f = openWindow(kReverse, QStringLiteral("abcdefg"));
    QVERIFY(f);
    f->controller->step();
    f->controller->step();
    QVERIFY(f->controller->waitUntilIdle());
    f->edit->setFocus();
    QTest::keyClick(f->edit, Qt::Key_7, Qt::AltModifier);
    auto* page = f->window.findChild<ui::RolloutPage*>();
    QVERIFY(page->isVisible());
    QVERIFY(waitFor([page] { return !page->busy() && !page->shown().weights.empty(); }));
    const auto snap = f->controller->current()->snapshot;
    const auto rollout = core::attentionRollout(*snap, core::AttentionKind::Cross);
    QCOMPARE(page->shown().kind, core::AttentionKind::Cross); // an encoder-decoder opens on cross
    QCOMPARE(page->shown().weights.data, rollout.weights.data);
    QCOMPARE(page->chart()->rows(), 3);
    QCOMPARE(page->chart()->cols(), 9);
    auto* method = page->findChild<QComboBox*>(QStringLiteral("rolloutMethod"));
    method->setCurrentIndex(1);
    QVERIFY(waitFor([page] { return !page->busy() && page->shown().flow; }));
    QCOMPARE(page->shown().weights.data,
             core::attentionFlow(*snap, core::AttentionKind::Cross)->weights.data);

    // A longer flow, cancelled: the page says so and keeps what it showed.
    auto g =
        openWindow(kLanguageModel, QStringLiteral("the weather in the winter is cold and the days are short "
                                                  "and the nights are long, so people stay in"));
    QVERIFY(g);
    g->window.showPage(ui::MainWindow::Page::Rollout);
    auto* lm = g->window.findChild<ui::RolloutPage*>();
    QVERIFY(waitFor([lm] { return !lm->busy(); }));
    lm->choose(core::AttentionKind::Decoder, ui::RolloutPage::Method::Flow);
    lm->cancel();
    QVERIFY(waitFor([lm] { return !lm->busy(); }));
    QVERIFY2(lm->statusText().startsWith(QStringLiteral("Cancelled")), qPrintable(lm->statusText()));
    QVERIFY(!lm->shown().flow);
}

void TestResearchPages::pinAndCompare() {
    auto f = openWindow(kReverse, QStringLiteral("abcdef"));
    QVERIFY(f);
    auto* state = f->window.viewState();
    state->setKind(core::AttentionKind::Cross);
    state->setSelection(1, core::kMeanHead);
    f->edit->setFocus();
    QTest::keyClick(f->edit, Qt::Key_9, Qt::AltModifier); // the Compare page, as a user opens it
    QTest::keyClick(f->edit, Qt::Key_P, Qt::ControlModifier | Qt::ShiftModifier);
    auto* page = f->window.findChild<ui::ComparePage*>();
    QVERIFY(page->isVisible());
    QVERIFY(page->pinned());
    const auto a = f->controller->current()->snapshot;
    // B: the same step with encoder layer 0 switched off.
    core::HeadAblation off;
    for (int h = 0; h < 4; ++h)
        off.set({core::AttentionKind::Encoder, 0, h}, true);
    f->controller->viewState()->setHeadsOff(off);
    QVERIFY(f->controller->waitUntilIdle());
    const auto b = f->controller->current()->snapshot;
    QVERIFY(a != b);
    const auto ma = core::meanOverHeads(a->cross, 1), mb = core::meanOverHeads(b->cross, 1);
    auto* diff = page->chart(2);
    QCOMPARE(diff->rows(), a->cross.queries);
    double worst = 0.0, largest = 0.0;
    for (int q = 0; q < diff->rows(); ++q)
        for (int k = 0; k < diff->cols(); ++k) {
            const double want =
                double(mb[std::size_t(q * diff->cols() + k)] - ma[std::size_t(q * diff->cols() + k)]);
            worst = std::max(worst, std::abs(diff->valueAt(q, k) - want));
            largest = std::max(largest, std::abs(want));
        }
    qInfo("B − A against the two snapshots: largest difference %.3g; the largest change is %.3g", worst,
          largest);
    QCOMPARE(worst, 0.0);
    QVERIFY(largest > 1e-3);
    QVERIFY2(page->statusText().contains(QStringLiteral("largest change")), qPrintable(page->statusText()));

    // B − A of the mean over heads, against the snapshots A (pinned) and B (on screen) hold now.
    const auto differenceMatches = [&] {
        const auto snapB = f->controller->current()->snapshot;
        const auto mA = core::meanOverHeads(a->cross, 1), mB = core::meanOverHeads(snapB->cross, 1);
        const int rows = std::min(a->cross.queries, snapB->cross.queries);
        const int cols = std::min(a->cross.keys, snapB->cross.keys);
        if (diff->rows() != rows || diff->cols() != cols)
            return false;
        for (int q = 0; q < rows; ++q)
            for (int k = 0; k < cols; ++k)
                if (diff->valueAt(q, k) != double(mB[std::size_t(q * snapB->cross.keys + k)] -
                                                  mA[std::size_t(q * a->cross.keys + k)]))
                    return false;
        return true;
    };
    // Another step of the same text: B has a row more, compared where both have rows.
    f->controller->viewState()->setHeadsOff({});
    f->controller->step();
    QVERIFY(f->controller->waitUntilIdle());
    QVERIFY(differenceMatches());
    QVERIFY2(page->statusText().contains(QStringLiteral("covers the first 1 rows")),
             qPrintable(page->statusText()));
    // Another text: the tokens that differ are counted.
    f->edit->selectAll();
    QTest::keyClicks(f->edit, QStringLiteral("abcxef"));
    QVERIFY(f->controller->waitUntilIdle());
    QVERIFY(differenceMatches());
    QVERIFY2(page->statusText().contains(QStringLiteral("1 token(s) of the overlap differ")),
             qPrintable(page->statusText()));
    // Another model with the same tokenizer (sort shares reverse's characters): A stays pinned.
    QVERIFY(f->window.opener()->open(QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/sort")));
    QVERIFY(f->controller->waitUntilIdle());
    QVERIFY(QTest::qWaitFor([&] { return f->controller->current() != nullptr; }, 30000));
    QVERIFY(differenceMatches());
    QVERIFY2(page->aText().contains(QStringLiteral("reverse")) &&
                 page->bText().contains(QStringLiteral("sort")),
             qPrintable(page->aText() + QStringLiteral(" | ") + page->bText()));
    qInfo("pinned %s; on screen %s; %s", qPrintable(page->aText()), qPrintable(page->bText()),
          qPrintable(page->statusText()));
    // Out of sight, the page leaves each step alone (no copies, means or drawing of either run); shown
    // again, it catches up.
    const int shownRows = page->chart(1)->rows();
    f->window.showPage(ui::MainWindow::Page::Attention);
    f->controller->step();
    QVERIFY(f->controller->waitUntilIdle());
    QCOMPARE(page->chart(1)->rows(), shownRows);
    f->window.showPage(ui::MainWindow::Page::Compare);
    QCOMPARE(page->chart(1)->rows(), f->controller->current()->snapshot->cross.queries);
    QVERIFY(differenceMatches());
}

void TestResearchPages::compareFollowsTheAttentionPage() {
    // What the Attention page shows is what Compare shows: masked future cells, the scale and colour map
    // chosen there; a long text's header stays a line; no empty plot stands in for a run not pinned.
    auto f = openWindow(kLanguageModel, QString());
    QVERIFY(f);
    f->window.showPage(ui::MainWindow::Page::Compare);
    auto* page = f->window.findChild<ui::ComparePage*>();
    QVERIFY(page->isVisible());
    const auto visible = [&] {
        return QString::fromLatin1("%1%2%3")
            .arg(page->chart(0)->isVisible() ? 'A' : '-')
            .arg(page->chart(1)->isVisible() ? 'B' : '-')
            .arg(page->chart(2)->isVisible() ? 'D' : '-');
    };
    qInfo("nothing typed: plots %s, \"%s\"", qPrintable(visible()), qPrintable(page->statusText()));
    QCOMPARE(visible(), QStringLiteral("---"));
    QString text;
    while (text.size() < 4351)
        text += QStringLiteral("the cat sat on the mat and ");
    text.truncate(4351);
    f->edit->setFocus();
    f->edit->insert(text);
    QVERIFY(f->controller->waitUntilIdle());
    QVERIFY(f->controller->current());
    qInfo("typed, nothing pinned: plots %s, \"%s\"", qPrintable(visible()), qPrintable(page->statusText()));
    QCOMPARE(visible(), QStringLiteral("-B-"));
    auto* state = f->window.viewState();
    state->setKind(core::AttentionKind::Decoder);
    state->setSelection(0, 1);
    QTest::keyClick(f->edit, Qt::Key_P, Qt::ControlModifier | Qt::ShiftModifier);
    QVERIFY(page->pinned());
    f->controller->step();
    QVERIFY(f->controller->waitUntilIdle());
    QCOMPARE(visible(), QStringLiteral("ABD"));
    qInfo("header of a %lld-character text: %lld characters: %s", static_cast<long long>(text.size()),
          static_cast<long long>(page->bText().size()), qPrintable(page->bText()));
    QVERIFY(page->bText().size() < 120);
    QVERIFY(page->bText().contains(QChar(0x2026)));
    // Masked: a key after the query is no weight 0 but NaN, drawn in the masked colour, in A, B and B − A.
    for (int which = 0; which < 3; ++which) {
        QVERIFY2(std::isnan(page->chart(which)->valueAt(0, 1)), qPrintable(QString::number(which)));
        QVERIFY(std::isfinite(page->chart(which)->valueAt(1, 0)));
    }
    const auto mapOf = [&](int which) {
        return qobject_cast<QCPColorMap*>(page->chart(which)->plot()->plottable(0));
    };
    QCOMPARE(mapOf(0)->dataRange().lower, 0.0);
    QCOMPARE(mapOf(0)->dataRange().upper, 1.0);
    // Per head: both on one range, the informative range of both heads (core's), as the heatmap has it.
    state->setScaleMode(ui::ScaleMode::PerHead);
    const auto* heat = f->window.findChild<ui::HeatmapView*>();
    const auto range = mapOf(1)->dataRange();
    qInfo("per head: A %g..%g, B %g..%g; the heatmap %g..%g", mapOf(0)->dataRange().lower,
          mapOf(0)->dataRange().upper, range.lower, range.upper, heat->colorRange().first,
          heat->colorRange().second);
    QVERIFY(range.upper < 1.0 && range.lower > 0.0);
    QCOMPARE(mapOf(0)->dataRange().lower, range.lower);
    QCOMPARE(mapOf(0)->dataRange().upper, range.upper);
    // Log: the scale of orders of magnitude, from its floor.
    state->setScaleMode(ui::ScaleMode::Log);
    QCOMPARE(mapOf(1)->dataScaleType(), QCPAxis::stLogarithmic);
    QCOMPARE(mapOf(1)->dataRange().lower, double(ui::kLogScaleFloor));
    QCOMPARE(mapOf(2)->dataScaleType(), QCPAxis::stLinear); // B − A is signed
    state->setScaleMode(ui::ScaleMode::Fixed);
    QCOMPARE(mapOf(1)->dataScaleType(), QCPAxis::stLinear);
    // Another colour map: A and B take it, the masked colour with it.
    state->setColorMap(QStringLiteral("magma"));
    const auto magma = ui::ColorMap::byName(QStringLiteral("magma"));
    QCOMPARE(mapOf(0)->gradient().color(1.0, QCPRange(0, 1)), magma.gradient().color(1.0, QCPRange(0, 1)));
    const QByteArray shots = qgetenv("ATTNSCOPE_TEST_SHOTS");
    if (!shots.isEmpty()) {
        f->window.resize(1024, 700);
        QCoreApplication::processEvents();
        QVERIFY(f->window.grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/compare-masked.png")));
    }
}

ATTNSCOPE_WIDGETS_MAIN(TestResearchPages)
#include "test_researchpages.moc"
