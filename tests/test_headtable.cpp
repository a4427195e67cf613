// The Heads page: every decoder self-attention head scored, sorted by any column, a row leading to its head,
// and the scores reaching the grid's tooltips.

#include "TestModels.h"

#include "core/analysis/HeadAnalysis.h"
#include "core/run/Analyze.h"
#include "ui/AttentionGrid.h"
#include "ui/HeadTable.h"

#include <QHeaderView>
#include <QSignalSpy>
#include <QStandardItemModel>
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
        QVERIFY(t.statusText().contains(QStringLiteral("Strongest induction head")));
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
