// The Heads page: every decoder self-attention head scored, sorted by any column, a row leading to its head,
// and the scores reaching the grid's tooltips.

#include "tests/support/WindowFixture.h"

#include "core/analysis/HeadAnalysis.h"
#include "core/run/Analyze.h"
#include "ui/base/ViewState.h"
#include "ui/research/HeadTable.h"
#include "ui/run/RunResult.h"
#include "ui/views/AttentionGrid.h"

#include <QHeaderView>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QStatusBar>
#include <QTableView>
#include <QTest>

class TestHeadTable : public QObject {
    Q_OBJECT
private:
    static std::shared_ptr<const core::Model> decoderOnly() {
        return randomModel(smallConfig(core::Architecture::DecoderOnly, core::PositionalEncoding::Learned),
                           7);
    }
    static double cell(const ui::HeadTable& t, int row, int column) {
        return t.view()->model()->index(row, column).data(Qt::UserRole + 1).toDouble();
    }
    static bool waitForScores(ui::HeadTable& t) {
        return QTest::qWaitFor([&] { return !t.computing() && !t.scores().empty(); }, 30000);
    }

private Q_SLOTS:
    void initTestCase() { isolateSettings(); }

    void scoresEveryHeadLikeTheCore() {
        ui::HeadTable t;
        const auto model = decoderOnly();
        QSignalSpy changed(&t, &ui::HeadTable::scoresChanged);
        t.setModel(model);
        QVERIFY(!t.computing()); // nothing is scored before anybody looks
        t.ensureScores();
        QVERIFY(waitForScores(t));
        const auto& c = model->config();
        QCOMPARE(t.view()->model()->rowCount(), c.decoderLayers * c.heads);
        QVERIFY(changed.count() >= 2); // cleared, then filled
        // The same numbers as the core's analysis with the page's default settings.
        const auto expected = core::analyzeHeads(*model, core::HeadAnalysisSettings{});
        QCOMPARE(t.scores().size(), expected.size());
        for (std::size_t i = 0; i < expected.size(); ++i) {
            QCOMPARE(t.scores()[i].inductionScore, expected[i].inductionScore);
            QCOMPARE(t.scores()[i].previousTokenScore, expected[i].previousTokenScore);
        }
        // Random weights: every head near chance, none named the strongest.
        QVERIFY2(t.statusText().contains(QStringLiteral("No head stands out as an induction head")),
                 qPrintable(t.statusText()));
    }

    void namesAnInductionHeadOnlyWhereOneFormed() {
        // The built-in model trained to form one: its induction head is named, far above chance.
        ui::HeadTable t;
        t.setModel(core::Model::load(ATTNSCOPE_SOURCE_DIR "/resources/models/induction"));
        t.ensureScores();
        QVERIFY(waitForScores(t));
        QVERIFY2(t.statusText().contains(QStringLiteral("Strongest induction head: layer 1")),
                 qPrintable(t.statusText()));
        qInfo("%s", qPrintable(t.statusText()));
    }

    void sortsByAnyColumn() {
        ui::HeadTable t;
        t.setModel(decoderOnly());
        t.ensureScores();
        QVERIFY(waitForScores(t));
        const int rows = t.view()->model()->rowCount();
        // Opens with the strongest induction head first.
        for (int r = 1; r < rows; ++r)
            QVERIFY(cell(t, r - 1, ui::HeadTable::Induction) >= cell(t, r, ui::HeadTable::Induction));
        t.view()->sortByColumn(ui::HeadTable::Entropy, Qt::AscendingOrder);
        for (int r = 1; r < rows; ++r)
            QVERIFY(cell(t, r - 1, ui::HeadTable::Entropy) <= cell(t, r, ui::HeadTable::Entropy));
        // New scores keep the user's sort.
        t.setSettings(8, 2);
        QVERIFY(waitForScores(t));
        QCOMPARE(t.view()->horizontalHeader()->sortIndicatorSection(), int(ui::HeadTable::Entropy));
        for (int r = 1; r < rows; ++r)
            QVERIFY(cell(t, r - 1, ui::HeadTable::Entropy) <= cell(t, r, ui::HeadTable::Entropy));
    }

    void rowLeadsToItsHead() {
        ui::HeadTable t;
        t.setModel(decoderOnly());
        t.ensureScores();
        QVERIFY(waitForScores(t));
        QSignalSpy activated(&t, &ui::HeadTable::headActivated);
        const auto index = t.view()->model()->index(2, ui::HeadTable::Induction);
        Q_EMIT t.view()->doubleClicked(index);
        QCOMPARE(activated.count(), 1);
        QCOMPARE(activated.at(0).at(0).toInt(), int(cell(t, 2, ui::HeadTable::Layer)));
        QCOMPARE(activated.at(0).at(1).toInt(), int(cell(t, 2, ui::HeadTable::Head)));
    }

    void doubleClickOpensTheMeasuredSequence() {
        // The head opened on whatever text was current (often a 1×1 cell); it opens on <bos> R R, the first
        // sequence its scores were measured on, in ids, with the source field showing R.
        auto f = openWindow(QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/tiny-lm"),
                            QStringLiteral("hi"));
        QVERIFY(f);
        f->window.showPage(ui::MainWindow::Page::Heads);
        auto* table = f->window.findChild<ui::HeadTable*>(QStringLiteral("headTable"));
        QVERIFY(table);
        QVERIFY(waitForScores(*table));
        auto* view = table->view();
        const auto index = view->model()->index(0, ui::HeadTable::Induction); // the strongest induction head
        const int layer = int(cell(*table, 0, ui::HeadTable::Layer)),
                  head = int(cell(*table, 0, ui::HeadTable::Head));
        view->scrollTo(index);
        const QPoint at = view->visualRect(index).center();
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, at);
        QTest::mouseDClick(view->viewport(), Qt::LeftButton, {}, at);
        QVERIFY(f->controller->waitUntilIdle());
        QCoreApplication::processEvents();
        const auto r = f->controller->current();
        QVERIFY(r);
        const auto model = f->controller->model();
        const auto probe = core::headProbes(*model, core::HeadAnalysisSettings{}).front();
        std::vector<int64_t> shown;
        for (const auto& t : r->snapshot->tgtTokens)
            shown.push_back(t.id);
        QCOMPARE(int(shown.size()), 1 + 2 * probe.repeatLength);
        QVERIFY(shown == probe.tgt);
        QCOMPARE(f->window.viewState()->kind(), core::AttentionKind::Decoder);
        QCOMPARE(f->window.viewState()->layer(), layer);
        QCOMPARE(f->window.viewState()->head(), head);
        const auto one = core::scoreHead(r->snapshot->decoder, layer, head, probe.repeatLength);
        qInfo("layer %d head %d: induction %.3f in the table (mean of 4 sequences), %.3f on the one shown",
              layer, head, table->scores()[std::size_t(layer * model->config().heads + head)].inductionScore,
              one.inductionScore);
        QVERIFY2(f->window.statusBar()->currentMessage().contains(QStringLiteral("measured on")),
                 qPrintable(f->window.statusBar()->currentMessage()));
        QVERIFY(!f->edit->text().isEmpty() && f->edit->text() != QStringLiteral("hi"));
        const QByteArray shots = qgetenv("ATTNSCOPE_TEST_SHOTS"); // the window as the user sees it then
        if (!shots.isEmpty())
            QVERIFY(
                f->window.grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/head-measured.png")));
        // Typing analyses the user's own text again.
        f->edit->selectAll();
        QTest::keyClicks(f->edit, QStringLiteral("the cat"));
        QVERIFY(f->controller->waitUntilIdle());
        QCOMPARE(int(f->controller->current()->snapshot->tgtTokens.size()),
                 int(model->targetTokens("the cat").size()));
    }

    void aNewModelDropsTheOldScores() {
        ui::HeadTable t;
        t.setModel(decoderOnly());
        t.ensureScores();
        QVERIFY(waitForScores(t));
        t.setModel(nullptr);
        QVERIFY(t.scores().empty());
        QCOMPARE(t.view()->model()->rowCount(), 0);
    }

    void inductionScoreInTheGridTooltip() {
        const auto model = decoderOnly();
        const auto scores = core::analyzeHeads(*model, core::HeadAnalysisSettings{});
        auto snap = std::make_shared<core::AttentionSnapshot>(
            core::analyze(*model, {}, {model->targetTokenizer().vocab().bos(), 5, 6, 7, 8}));
        ui::AttentionGrid grid;
        grid.setShown({snap, core::AttentionKind::Decoder});
        QVERIFY(!grid.tileToolTip(1, 2).contains(QStringLiteral("Induction score")));
        grid.setHeadScores(scores);
        const auto expected = QString::number(scores[1 * model->config().heads + 2].inductionScore, 'f', 3);
        QVERIFY2(grid.tileToolTip(1, 2).contains(QStringLiteral("Induction score: ") + expected),
                 qPrintable(grid.tileToolTip(1, 2)));
        QVERIFY(!grid.tileToolTip(1, core::kMeanHead).contains(QStringLiteral("Induction score")));
    }
};

QTEST_MAIN(TestHeadTable)
#include "test_headtable.moc"
