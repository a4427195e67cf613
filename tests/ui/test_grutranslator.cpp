// The built-in GRU translator in the real window, driven as the Transformer is: Step three times from the
// keyboard in the Source field, Back (served from history), a candidate's label clicked forces it and the
// decode branches, Run to end stops at <eos>, Reset returns to <bos>, a sampled step with a seed draws the
// same token twice. The attention page offers its one kind (cross-attention, one layer of one head: no
// grid), and each row is the GRU's alignment, equal to core's own Session run. The Inside tab opens its row
// (the query from the hidden state, additive terms, an unscaled softmax) without a W_O after it. With
// ATTNSCOPE_TEST_SHOTS set, saves gru-decoding.png.

#include "tests/support/WindowFixture.h"

#include "core/run/Session.h"
#include "ui/attention/AttentionPage.h"
#include "ui/attention/CandidatesChart.h"
#include "ui/attention/DecodePanel.h"
#include "ui/base/QCustomPlotInclude.h"
#include "ui/inside/InsideView.h"
#include "ui/run/InsideResult.h"
#include "ui/views/AttentionGrid.h"

#include <QAction>
#include <QComboBox>
#include <QtTest>

namespace {

const QString kGru = QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/en-es-gru");
const QString kText = QStringLiteral("The old man walked to the small white house.");

} // namespace

class TestGruTranslator : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { isolateSettings(); }
    void stepsLikeTheTransformer();
};

void TestGruTranslator::stepsLikeTheTransformer() {
    auto f = openWindow(kGru, kText);
    QVERIFY(f);
    auto* page = f->window.findChild<ui::AttentionPage*>();
    auto* combo = page->findChild<QComboBox*>(QStringLiteral("kindCombo"));
    QCOMPARE(combo->count(), 1);
    QCOMPARE(core::AttentionKind(combo->itemData(0).toInt()), core::AttentionKind::Cross);
    QTRY_VERIFY(!page->findChild<ui::AttentionGrid*>(QStringLiteral("attentionGrid"))->isVisible());
    QVERIFY(page->findChild<ui::DecodePanel*>()->isVisible());

    // Three steps from the keyboard where a user is after typing.
    auto* step = f->window.findChild<QAction*>(QStringLiteral("stepAction"));
    QVERIFY(step);
    f->edit->setFocus();
    for (int i = 0; i < 3; ++i) {
        QTest::keySequence(f->edit, step->shortcut());
        QVERIFY(f->controller->waitUntilIdle());
        QCOMPARE(f->controller->current()->step, i + 1);
    }
    // The same three greedy steps through core alone: the rows and the distribution agree exactly.
    core::Session session(f->window.model());
    session.analyze(kText.toStdString());
    for (int i = 0; i < 3; ++i)
        session.step();
    const auto expected = session.snapshot();
    const auto shown = f->controller->current()->snapshot;
    QCOMPARE(shown->tgtTokens.size(), expected.tgtTokens.size());
    QCOMPARE(shown->cross.queries, 4);
    QCOMPARE(shown->cross.layers * shown->cross.heads, 1);
    for (int q = 0; q < 4; ++q)
        for (int j = 0; j < shown->cross.keys; ++j)
            QCOMPARE(shown->cross.at(0, 0, q, j), expected.cross.at(0, 0, q, j));
    QCOMPARE(shown->nextTokenLogProbs, expected.nextTokenLogProbs);
    const QByteArray dir = qgetenv("ATTNSCOPE_TEST_SHOTS");
    if (!dir.isEmpty()) {
        QTest::qWait(50);
        QVERIFY(f->window.grab().save(QString::fromLocal8Bit(dir) + QStringLiteral("/gru-decoding.png")));
    }

    // Back is a lookup; a click on the fourth candidate's label forces it and the decode branches.
    f->window.findChild<QAction*>(QStringLiteral("backAction"))->trigger();
    QVERIFY(f->controller->waitUntilIdle());
    QCOMPARE(f->controller->current()->step, 2);
    auto* chart = page->findChild<ui::CandidatesChart*>();
    const auto top = chart->candidates();
    QVERIFY(top.size() >= 4);
    auto* plot = chart->plot();
    QTest::mouseClick(plot, Qt::LeftButton, {}, plot->mapFrom(chart, chart->labelCenter(3)));
    QVERIFY(f->controller->waitUntilIdle());
    QCOMPARE(f->controller->current()->snapshot->tgtTokens.back().id, top[3].id);
    QCOMPARE(f->controller->current()->snapshot->forced, std::vector<int>{3});

    // Run to end: <eos> ends it; Reset goes back to <bos>.
    f->window.findChild<QAction*>(QStringLiteral("runAction"))->trigger();
    QVERIFY(f->controller->waitUntilIdle());
    const auto end = f->controller->current();
    QVERIFY(end->finished);
    QCOMPARE(end->snapshot->tgtTokens.back().text, std::string("<eos>"));
    f->window.findChild<QAction*>(QStringLiteral("resetAction"))->trigger();
    QVERIFY(f->controller->waitUntilIdle());
    QCOMPARE(f->controller->current()->step, 0);

    // Sampling with a seed draws the same token each time it is asked from the same state.
    core::SamplingSettings s;
    s.greedy = false;
    s.temperature = 1.5;
    s.seed = 7;
    f->controller->setSampling(s);
    std::vector<int64_t> drawn;
    for (int i = 0; i < 2; ++i) {
        step->trigger();
        QVERIFY(f->controller->waitUntilIdle());
        drawn.push_back(f->controller->current()->snapshot->tgtTokens.back().id);
        f->window.findChild<QAction*>(QStringLiteral("backAction"))->trigger();
        QVERIFY(f->controller->waitUntilIdle());
    }
    QCOMPARE(drawn[0], drawn[1]);

    // The Inside tab (Alt+5 from the Source field) opens the GRU's row: its weights are the heatmap's,
    // and every key and dimension can be hovered.
    auto* inside = showInsideFromSource(*f);
    QVERIFY(inside);
    const auto& row = inside->shownInside()->row;
    QVERIFY(row.recurrent);
    QCOMPARE(row.weights.size(), row.captured.size());
    for (std::size_t j = 0; j < row.weights.size(); ++j)
        QVERIFY(std::abs(row.weights[j] - row.captured[j]) < 1e-5);
    for (int j = 0; j < row.k.rows; ++j)
        inside->hover(j, row.headSize - 1);
    QVERIFY2(inside->formulaLine(4).contains(QStringLiteral("no scaling")),
             qPrintable(inside->formulaLine(4)));
    QVERIFY2(inside->formulaLine(5).contains(QStringLiteral("GRU")), qPrintable(inside->formulaLine(5)));
}

QTEST_MAIN(TestGruTranslator)
#include "test_grutranslator.moc"
