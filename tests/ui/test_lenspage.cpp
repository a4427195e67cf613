// The Logit lens page used as a user uses it: Alt+0 from the Source field shows it; its map holds core's
// lens of the run on screen cell for cell (probability, rank, entropy), each cell labelled with its top
// token and its tooltip giving the top ten; the arrow keys move the selected cell and the depth chart
// follows its position; Enter, or a click, opens the cell's layer on the Attention page with the position's
// row marked (cross-attention for a translator's "L.cross" point); a followed token is typed as text or
// #id, and a text of two tokens is refused naming them; a step of the decode reads one position more; a
// classifier has no such tab; and the attribution panel splits the selected position's token as core does,
// follows the selection, and opens a clicked head on the Attention page.

#include "tests/support/WindowFixture.h"

#include "core/analysis/Attribution.h"
#include "core/analysis/LogitLens.h"
#include "core/model/Model.h"
#include "ui/attention/TokenStrip.h"
#include "ui/base/AppSettings.h"
#include "ui/base/Pages.h"
#include "ui/base/QCustomPlotInclude.h"
#include "ui/base/ViewState.h"
#include "ui/research/AttributionPanel.h"
#include "ui/research/LensDepthChart.h"
#include "ui/research/LensPage.h"
#include "ui/research/ResearchPages.h"
#include "ui/views/MatrixChart.h"

#include <QAction>
#include <QApplication>
#include <QFileDialog>
#include <QLineEdit>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>

using nlohmann::json;

namespace {

const QString kLanguageModel = QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/tiny-lm");
const QString kTranslator = QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/en-es");
const QString kClassifier = QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/spam");

// Alt+0 from the Source field, then the lens of the run on screen.
ui::LensPage* showLens(WindowFixture& f) {
    f.edit->setFocus();
    QTest::keyClick(f.edit, Qt::Key_0, Qt::AltModifier);
    auto* page = f.window.research()->lens();
    if (!QTest::qWaitFor([&] { return page->isVisible() && !page->busy() && !page->shown().points.empty(); },
                         60000))
        return nullptr;
    return page;
}

} // namespace

class TestLensPage : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { isolateSettings(); }
    void mapHoldsCoresLens();
    void keysMoveAndOpen();
    void clickOpensCrossAttention();
    void followATypedToken();
    void aStepReadsOneMore();
    void aClassifierHasNoLens();
    void attributionFollowsTheSelection();
    void timelineInTheTargetStrip();
    void exportsInTheCommandsSchema();
};

void TestLensPage::mapHoldsCoresLens() {
    auto f = openWindow(kLanguageModel, QStringLiteral("the cat sat on the mat"));
    QVERIFY(f);
    auto* page = showLens(*f);
    QVERIFY2(page, "the lens page did not show a lens within 60 s");
    const auto r = f->controller->current();
    const auto lens = core::logitLens(*r->model, *r->snapshot);
    const auto& shown = page->shown();
    QCOMPARE(shown.points, lens.points);
    QCOMPARE(shown.tokens.size(), lens.tokens.size());
    auto* chart = page->chart();
    const int P = static_cast<int>(lens.points.size()), T = static_cast<int>(lens.tokens.size());
    QCOMPARE(chart->rows(), P);
    QCOMPARE(chart->cols(), T);
    const auto worst = [&](const std::function<double(std::size_t, std::size_t)>& expected) {
        double w = 0.0;
        for (int p = 0; p < P; ++p)
            for (int t = 0; t < T; ++t)
                w = std::max(w, std::abs(chart->valueAt(page->rowOf(p), t) - expected(p, t)));
        return w;
    };
    const double prob = worst([&](auto p, auto t) { return std::exp(double(lens.logprob[p][t])); });
    page->setColour(ui::LensPage::Colour::Rank);
    const double rank = worst([&](auto p, auto t) { return double(lens.rank[p][t] + 1); });
    page->setColour(ui::LensPage::Colour::Entropy);
    const double entropy = worst([&](auto p, auto t) { return double(lens.entropy[p][t]); });
    qInfo("%d points x %d positions against core::logitLens: probability %.3g, rank %.3g, entropy %.3g", P, T,
          prob, rank, entropy);
    QVERIFY(prob < 1e-6);
    QCOMPARE(rank, 0.0);
    QVERIFY(entropy < 1e-5);
    // The top row is the model's output, the bottom the embeddings.
    QCOMPARE(page->rowOf(P - 1), 0);
    QCOMPARE(page->rowOf(0), P - 1);
    // A cell's tooltip: its ten candidates, most likely first, with their probabilities.
    const auto tip = page->cellTip(P - 1, 2);
    const auto& top = lens.top[std::size_t(P - 1)][2];
    QCOMPARE(static_cast<int>(top.size()), 10);
    int at = 0;
    for (int k = 0; k < 10; ++k) {
        const auto line = QStringLiteral("%1. ").arg(k + 1);
        const int found = tip.indexOf(line, at);
        QVERIFY2(found > at || (k == 0 && found >= 0), qPrintable(tip));
        QVERIFY2(tip.indexOf(QString::number(top[std::size_t(k)].prob, 'f', 3), found) > found,
                 qPrintable(tip));
        at = found;
    }
    QVERIFY2(tip.contains(QStringLiteral("layer 1 after its MLP")), qPrintable(tip));
}

void TestLensPage::keysMoveAndOpen() {
    auto f = openWindow(kLanguageModel, QStringLiteral("the cat sat on the mat"));
    QVERIFY(f);
    auto* page = showLens(*f);
    QVERIFY(page);
    const int P = static_cast<int>(page->shown().points.size()),
              T = static_cast<int>(page->shown().tokens.size());
    // Selected at first: the output at the last position.
    QCOMPARE(page->selected(), std::make_pair(P - 1, T - 1));
    auto* plot = page->chart()->plot();
    plot->setFocus();
    QTest::keyClick(plot, Qt::Key_Left);
    QTest::keyClick(plot, Qt::Key_Left);
    QTest::keyClick(plot, Qt::Key_Down);
    QTest::keyClick(plot, Qt::Key_Down);
    QCOMPARE(page->selected(), std::make_pair(P - 3, T - 3));
    // The depth chart's strong line is that position's, point by point.
    QCOMPARE(page->depth()->position(), T - 3);
    const auto line = page->depth()->shownLine();
    QCOMPARE(line.size(), P);
    for (int p = 0; p < P; ++p)
        QCOMPARE(line[p], std::exp(double(page->shown().logprob[std::size_t(p)][std::size_t(T - 3)])));
    QTest::keyClick(plot, Qt::Key_Home);
    QCOMPARE(page->selected().second, 0);
    QTest::keyClick(plot, Qt::Key_End);
    QTest::keyClick(plot, Qt::Key_Left);
    // P − 3 of tiny-lm's 5 points is "0.mlp": Enter opens decoder self-attention, layer 0, row T − 2.
    QCOMPARE(QString::fromStdString(page->shown().points[std::size_t(P - 3)]), QStringLiteral("0.mlp"));
    QTest::keyClick(plot, Qt::Key_Return);
    QCOMPARE(f->window.currentPage(), ui::Page::Attention);
    auto* state = f->window.viewState();
    QCOMPARE(state->kind(), core::AttentionKind::Decoder);
    QCOMPARE(state->shown().layer, 0);
    QCOMPARE(state->markOrientation(), Qt::Horizontal);
    QCOMPARE(state->markIndex(), T - 2);
    // And back: Alt+0 shows the same lens, selection kept.
    QVERIFY(showLens(*f));
    QCOMPARE(page->selected(), std::make_pair(P - 3, T - 2));
    QTest::keyClick(plot, Qt::Key_Up);
    QTest::keyClick(plot, Qt::Key_Up);
    QTest::keyClick(plot, Qt::Key_Up); // past the top stays there
    QCOMPARE(page->selected(), std::make_pair(P - 1, T - 2));
}

void TestLensPage::clickOpensCrossAttention() {
    auto f = openWindow(kTranslator, QStringLiteral("the white house"));
    QVERIFY(f);
    f->controller->step();
    f->controller->step();
    QVERIFY(f->controller->waitUntilIdle());
    auto* page = showLens(*f);
    QVERIFY(page);
    const auto& points = page->shown().points;
    const auto cross = std::find(points.begin(), points.end(), std::string("1.cross"));
    QVERIFY(cross != points.end());
    const int p = static_cast<int>(cross - points.begin());
    QCOMPARE(static_cast<int>(page->shown().tokens.size()), 3); // <bos> and two decoded tokens
    QVERIFY2(page->statusText().contains(QStringLiteral("target positions")), qPrintable(page->statusText()));
    auto* chart = page->chart();
    const QPoint at = chart->cellCenter(page->rowOf(p), 1);
    QVERIFY(!at.isNull());
    QTest::mouseMove(chart->plot(), chart->plot()->mapFrom(chart, at));
    QTest::mouseClick(chart->plot(), Qt::LeftButton, {}, chart->plot()->mapFrom(chart, at));
    QCOMPARE(f->window.currentPage(), ui::Page::Attention);
    auto* state = f->window.viewState();
    QCOMPARE(state->kind(), core::AttentionKind::Cross);
    QCOMPARE(state->shown().layer, 1);
    QCOMPARE(state->markIndex(), 1);
}

void TestLensPage::followATypedToken() {
    auto f = openWindow(kLanguageModel, QStringLiteral("the cat sat on the mat"));
    QVERIFY(f);
    auto* page = showLens(*f);
    QVERIFY(page);
    auto* field = page->findChild<QLineEdit*>(QStringLiteral("lensToken"));
    QVERIFY(field);
    field->setFocus();
    QTest::keyClicks(field, QStringLiteral("#7"));
    QTest::keyClick(field, Qt::Key_Return);
    QVERIFY(QTest::qWaitFor([&] { return !page->busy() && page->shown().chosen.front() == 7; }, 60000));
    for (const auto id : page->shown().chosen)
        QCOMPARE(id, int64_t(7));
    const auto r = f->controller->current();
    const auto lens = core::logitLens(*r->model, *r->snapshot, 7);
    QCOMPARE(page->shown().rank, lens.rank);
    // Two tokens are refused, naming them; the lens stays.
    field->clear(); // the clear button's way back: the model's next token
    QVERIFY(QTest::qWaitFor([&] { return !page->busy() && page->shown().chosen.front() != 7; }, 60000));
    const auto before = page->shown().chosen;
    QTest::keyClicks(field, QStringLiteral("the cat"));
    QTest::keyClick(field, Qt::Key_Return);
    QVERIFY2(page->statusText().contains(QStringLiteral("tokens")) &&
                 page->statusText().contains(QStringLiteral("follows one")),
             qPrintable(page->statusText()));
    QCOMPARE(page->shown().chosen, before);
    QVERIFY(!page->followToken(QStringLiteral("#99999999")));
    QVERIFY2(page->statusText().contains(QStringLiteral("no token #99999999")),
             qPrintable(page->statusText()));
}

void TestLensPage::aStepReadsOneMore() {
    auto f = openWindow(kTranslator, QStringLiteral("the white house"));
    QVERIFY(f);
    auto* page = showLens(*f);
    QVERIFY(page);
    QCOMPARE(static_cast<int>(page->shown().tokens.size()), 1); // <bos> alone
    // Ctrl+→ from the lens page: the decode goes on, and the lens reads the new position.
    QTest::keyClick(page->chart()->plot(), Qt::Key_Right, Qt::ControlModifier);
    QVERIFY(f->controller->waitUntilIdle());
    QVERIFY(QTest::qWaitFor([&] { return !page->busy() && page->shown().tokens.size() == 2; }, 60000));
    // Back (Ctrl+←) returns to one position.
    QTest::keyClick(page->chart()->plot(), Qt::Key_Left, Qt::ControlModifier);
    QVERIFY(f->controller->waitUntilIdle());
    QVERIFY(QTest::qWaitFor([&] { return !page->busy() && page->shown().tokens.size() == 1; }, 60000));
}

void TestLensPage::aClassifierHasNoLens() {
    auto f = openWindow(kClassifier, QStringLiteral("win a free prize now"));
    QVERIFY(f);
    auto* tabs = f->window.findChild<QTabWidget*>(QStringLiteral("pages"));
    QVERIFY(!tabs->isTabVisible(static_cast<int>(ui::Page::Lens)));
    f->edit->setFocus();
    QTest::keyClick(f->edit, Qt::Key_0, Qt::AltModifier);
    QVERIFY(f->window.currentPage() != ui::Page::Lens);
    QVERIFY(!core::whyNoLogitLens(f->controller->model()->config()).empty());
    // Another model brings the tab back.
    QVERIFY(f->window.opener()->open(kLanguageModel));
    QVERIFY(tabs->isTabVisible(static_cast<int>(ui::Page::Lens)));
}

void TestLensPage::attributionFollowsTheSelection() {
    auto f = openWindow(kLanguageModel, QStringLiteral("the cat sat on the mat"));
    QVERIFY(f);
    auto* page = showLens(*f);
    QVERIFY(page);
    auto* panel = page->attribution();
    const int T = static_cast<int>(page->shown().tokens.size());
    const auto settled = [&](int position) {
        return QTest::qWaitFor([&] { return !page->busy() && panel->shown().position == position; }, 60000);
    };
    QVERIFY(settled(T - 1));
    // The panel holds core's attribution of the followed token at the selected position.
    const auto r = f->controller->current();
    const auto check = [&](int position) {
        const auto want = core::directLogitAttribution(*r->model, *r->snapshot, position,
                                                       page->shown().chosen[std::size_t(position)]);
        const auto& got = panel->shown();
        QCOMPARE(got.token, want.token);
        QCOMPARE(got.components.size(), want.components.size());
        QVERIFY(std::abs(got.sum - got.logit) <= 1e-4 * std::max(1.0, std::abs(got.logit)));
        const auto& c = r->model->config();
        QCOMPARE(panel->heads()->rows(), c.decoderLayers);
        QCOMPARE(panel->heads()->cols(), c.heads);
        double worst = 0.0;
        for (const auto& comp : want.components)
            if (comp.kind == "head")
                worst = std::max(
                    worst, std::abs(panel->heads()->valueAt(
                                        panel->rowOf(core::AttentionKind::Decoder, comp.layer), comp.head) -
                                    comp.contribution));
        QVERIFY2(worst < 1e-6, qPrintable(QString::number(worst)));
    };
    check(T - 1);
    QVERIFY2(panel->statusText().contains(QStringLiteral("parts adding to")),
             qPrintable(panel->statusText()));
    // A head's tooltip names the tokens it raises and lowers.
    const auto tip = panel->headTip(1, 3);
    QVERIFY2(tip.contains(QStringLiteral("raises most")) && tip.contains(QStringLiteral("lowers most")),
             qPrintable(tip));
    // The selection moves: the panel follows.
    auto* plot = page->chart()->plot();
    plot->setFocus();
    QTest::keyClick(plot, Qt::Key_Left);
    QVERIFY(settled(T - 2));
    check(T - 2);
    // A click on a head opens it on the Attention page, the position's row marked.
    auto* grid = panel->heads();
    const QPoint at = grid->cellCenter(panel->rowOf(core::AttentionKind::Decoder, 1), 3);
    QVERIFY(!at.isNull());
    QTest::mouseClick(grid->plot(), Qt::LeftButton, {}, grid->plot()->mapFrom(grid, at));
    QCOMPARE(f->window.currentPage(), ui::Page::Attention);
    auto* state = f->window.viewState();
    QCOMPARE(state->kind(), core::AttentionKind::Decoder);
    QCOMPARE(state->shown().layer, 1);
    QCOMPARE(state->shown().head, 3);
    QCOMPARE(state->markIndex(), T - 2);
}

void TestLensPage::timelineInTheTargetStrip() {
    // Each produced token's commitment point, drawn in the target strip, forwards and backwards.
    auto f = openWindow(kTranslator, QStringLiteral("the white house"));
    QVERIFY(f);
    auto* strip = f->window.findChild<ui::TokenStrip*>(QStringLiteral("targetStrip"));
    QVERIFY(strip);
    f->edit->setFocus();
    for (int i = 0; i < 3; ++i)
        QTest::keyClick(f->edit, Qt::Key_Right, Qt::ControlModifier);
    QVERIFY(f->controller->waitUntilIdle());
    QTRY_COMPARE(strip->count(), 4);
    const auto snap = f->controller->current()->snapshot;
    QCOMPARE(snap->commitment.size(), std::size_t(4));
    QCOMPARE(strip->commitment(0), -1); // <bos> was not produced
    QStringList said;
    for (int i = 1; i < 4; ++i) {
        QCOMPARE(strip->commitment(i), snap->commitment[std::size_t(i)]);
        QVERIFY(strip->commitment(i) >= 0); // greedy: the output's top token, settled somewhere
        said << QString::fromStdString(snap->streamPoints[std::size_t(strip->commitment(i))]);
    }
    qInfo("greedy tokens settled at %s", qPrintable(said.join(QStringLiteral(", "))));
    const int before = strip->chipRect(3).width();
    // Back: the history's result, its timeline one token shorter.
    QTest::keyClick(f->edit, Qt::Key_Left, Qt::ControlModifier);
    QVERIFY(f->controller->waitUntilIdle());
    QTRY_COMPARE(strip->count(), 3);
    QCOMPARE(strip->commitment(2), snap->commitment[2]);
    QCOMPARE(strip->commitment(3), -1);
    QVERIFY(before > 0);
}

void TestLensPage::exportsInTheCommandsSchema() {
    // File ▸ Export Lens / Attribution as JSON, through the save dialog a user fills in: what the page
    // shows, in the schema of attnscope lens and attnscope attribute.
    QTemporaryDir dir;
    ui::AppSettings::setExportDir(dir.path());
    auto f = openWindow(kLanguageModel, QStringLiteral("the cat sat on the mat"));
    QVERIFY(f);
    auto* page = showLens(*f);
    QVERIFY(page);
    QVERIFY(QTest::qWaitFor([&] { return !page->busy() && !page->attribution()->shown().components.empty(); },
                            60000));
    const auto save = [&](const char* action, const QString& name) {
        const auto path = dir.filePath(name);
        QTimer filler;
        connect(&filler, &QTimer::timeout, this, [&] {
            // The name the export suggests, in the folder it remembers: Save as a user would.
            if (auto* dialog = qobject_cast<QFileDialog*>(QApplication::activeModalWidget()))
                QMetaObject::invokeMethod(dialog, "accept");
        });
        filler.start(50);
        QAction* a = nullptr;
        for (auto* candidate : f->window.findChildren<QAction*>())
            if (candidate->text().remove(QLatin1Char('&')) == QString::fromUtf8(action))
                a = candidate;
        if (!a || !a->isEnabled()) {
            qWarning("no enabled action \"%s\"", action);
            return json();
        }
        a->trigger();
        std::ifstream in(path.toStdString());
        return in ? json::parse(in) : json();
    };
    const auto lens = save("Export Lens as JSON…", QStringLiteral("lens-step0.json"));
    QVERIFY(!lens.is_null());
    const auto& shown = page->shown();
    QCOMPARE(lens["points"].get<std::vector<std::string>>(), shown.points);
    QCOMPARE(lens["chosen"].get<std::vector<int64_t>>(), shown.chosen);
    QCOMPARE(lens["rank"].get<std::vector<std::vector<int64_t>>>(), shown.rank);
    QCOMPARE(lens["top"][0][0].size(), std::size_t(10));
    const auto parts =
        save("Export Attribution as JSON…",
             QStringLiteral("attribution-position%1-step0.json").arg(page->attribution()->shown().position));
    QVERIFY(!parts.is_null());
    const auto& a = page->attribution()->shown();
    QCOMPARE(parts["position"].get<int>(), a.position);
    QCOMPARE(parts["components"].size(), a.components.size());
    double total = 0.0;
    for (const auto& c : parts["components"])
        total += c["contribution"].get<double>();
    QVERIFY(std::abs(total - parts["logit"].get<double>()) <= 1e-4 * std::max(1.0, std::abs(total)));
    QCOMPARE(parts["components"][1]["promotes"].size(), std::size_t(ui::AttributionPanel::kExtremes));
}

QTEST_MAIN(TestLensPage)
#include "test_lenspage.moc"
