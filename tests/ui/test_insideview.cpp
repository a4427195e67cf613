// The Inside page as a user drives it, offscreen: opened with Alt+5 while the source field has the focus, it
// shows the row of the current decode step for the view state's kind, layer and head, with the weights the
// heatmap shows; hovering a key in one chart marks it in the others and rewrites the formula lines; picking a
// row, a head or stepping asks for the new row, and a mean-of-heads selection opens head 0 and says so. With
// ATTNSCOPE_TEST_SHOTS set, the page is saved there as inside-cross.png.

#include "tests/support/CliRunner.h"
#include "tests/support/WindowFixture.h"

#include "ui/attention/CandidatesChart.h"
#include "ui/base/QCustomPlotInclude.h"
#include "ui/base/ViewState.h"
#include "ui/export/Exporter.h"
#include "ui/inside/InsideView.h"
#include "ui/inside/SamplingChart.h"
#include "ui/views/MatrixChart.h"

#include <QComboBox>
#include <QTabWidget>

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

class TestInsideView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { isolateSettings(); }
    void followsTheViewAndTheStep();
    void hoverLinksTheCharts();
    void rowHeadAndMean();
    void exports();
    void runToEndBranchesAndSampling();
    void headSwitchedOff();
};

namespace {

const QString kTranslation = QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/en-es");

ui::InsideView* insideOf(WindowFixture& f) {
    return f.window.findChild<ui::InsideView*>(QStringLiteral("insideView"));
}

// Waits for the page to show an answer for what it wants now.
bool settled(WindowFixture& f) {
    auto* view = insideOf(f);
    for (int i = 0; i < 200; ++i) {
        if (!f.controller->waitUntilIdle())
            return false;
        QCoreApplication::processEvents();
        const auto& r = view->shownInside();
        const auto q = view->wanted();
        if (r && r->row.query.kind == q.kind && r->row.query.layer == q.layer &&
            r->row.query.head == q.head && r->row.query.row == q.row &&
            r->step == f.controller->current()->step)
            return true;
        QTest::qWait(10);
    }
    return false;
}

std::unique_ptr<WindowFixture> openOnInside(int steps) {
    auto f = openWindow(kTranslation, QStringLiteral("The old man walked to the small white house."));
    if (!f)
        return nullptr;
    for (int i = 0; i < steps; ++i) {
        f->controller->step();
        f->controller->waitUntilIdle();
    }
    f->window.viewState()->setKind(core::AttentionKind::Cross);
    f->window.viewState()->setSelection(1, 2);
    // Alt+5 from the source field, where a user is after typing.
    f->edit->setFocus();
    QTest::keyClick(f->edit, Qt::Key_5, Qt::AltModifier);
    return f;
}

} // namespace

void TestInsideView::followsTheViewAndTheStep() {
    auto f = openOnInside(3);
    QVERIFY(f);
    auto* tabs = f->window.findChild<QTabWidget*>(QStringLiteral("pages"));
    QCOMPARE(tabs->currentWidget(), insideOf(*f));
    QVERIFY(settled(*f));
    const auto& r = insideOf(*f)->shownInside()->row;
    const auto& snap = *f->controller->current()->snapshot;
    QCOMPARE(r.query.kind, core::AttentionKind::Cross);
    QCOMPARE(r.query.layer, 1);
    QCOMPARE(r.query.head, 2);
    QCOMPARE(r.query.row, int(snap.tgtTokens.size()) - 1); // the current decode step
    // The row is the heatmap's: the snapshot's weights of that layer, head and row.
    double worst = 0.0;
    for (int j = 0; j < snap.cross.keys; ++j)
        worst = std::max(worst,
                         std::abs(double(r.weights[std::size_t(j)]) - snap.cross.at(1, 2, r.query.row, j)));
    qInfo("Inside row vs the heatmap's row: %.3g", worst);
    QVERIFY(worst < 1e-5);
    QVERIFY(insideOf(*f)->heading().contains(QStringLiteral("the current decode step")));
    QVERIFY(insideOf(*f)->samplingChart()->summary().contains(QStringLiteral("greedy")));

    const QByteArray shots = qgetenv("ATTNSCOPE_TEST_SHOTS");
    if (!shots.isEmpty())
        QVERIFY(f->window.grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/inside-cross.png")));

    // Ctrl+→ steps from wherever the focus is; the page follows to the new current row.
    const int before = r.query.row;
    QTest::keyClick(insideOf(*f), Qt::Key_Right, Qt::ControlModifier);
    QVERIFY(settled(*f));
    QCOMPARE(insideOf(*f)->shownInside()->row.query.row, before + 1);
}

void TestInsideView::hoverLinksTheCharts() {
    auto f = openOnInside(2);
    QVERIFY(f);
    QVERIFY(settled(*f));
    auto* view = insideOf(*f);
    auto* k = view->chart("k");
    const auto& r = view->shownInside()->row;
    // The mouse on K's cell (key 2, dimension 5): every key-indexed line now speaks of that key.
    const QPoint at = k->cellCenter(2, 5);
    QVERIFY(!at.isNull());
    QTest::mouseMove(k->plot(), k->plot()->mapFrom(k, at));
    QCoreApplication::processEvents();
    const QString key = QString::fromStdString(r.keyTokens[2].text);
    QVERIFY2(view->formulaLine(3).contains(key), qPrintable(view->formulaLine(3)));
    QVERIFY2(view->formulaLine(4).contains(key), qPrintable(view->formulaLine(4)));
    QVERIFY2(view->formulaLine(3).contains(QStringLiteral("[5]")), qPrintable(view->formulaLine(3)));
    // The line's numbers are the row's: q·k of that key, and the weight the heatmap shows.
    QVERIFY(view->formulaLine(4).contains(QString::number(r.scores[2], 'g', 4)));
    QVERIFY(view->formulaLine(4).contains(QString::number(r.captured[2], 'g', 4)));
    QCOMPARE(view->chart("products")->cellText(2, 5).contains(QString::number(r.products.at(2, 5), 'g', 6)),
             true);
    // A lesson's step framing a stage reads the row's telling key (the most weight), not the one the mouse
    // was on before the step.
    const int telling =
        static_cast<int>(std::max_element(r.weights.begin(), r.weights.end()) - r.weights.begin());
    const QString tellingKey = QString::fromStdString(r.keyTokens[std::size_t(telling)].text);
    int other = 0;
    while (other < int(r.keyTokens.size()) &&
           QString::fromStdString(r.keyTokens[std::size_t(other)].text) == tellingKey)
        ++other;
    QVERIFY(other < int(r.keyTokens.size()));
    const QString otherKey = QString::fromStdString(r.keyTokens[std::size_t(other)].text);
    QTest::mouseMove(k->plot(), k->plot()->mapFrom(k, k->cellCenter(other, 5)));
    QCoreApplication::processEvents();
    QVERIFY2(view->formulaLine(4).contains(otherKey), qPrintable(view->formulaLine(4)));
    view->setStage(4);
    qInfo("hovered \"%s\"; after the step: %s", qPrintable(otherKey), qPrintable(view->formulaLine(4)));
    QVERIFY2(view->formulaLine(4).contains(tellingKey) && !view->formulaLine(4).contains(otherKey),
             qPrintable(view->formulaLine(4)));
    view->setStage(0);
}

void TestInsideView::rowHeadAndMean() {
    auto f = openOnInside(2);
    QVERIFY(f);
    QVERIFY(settled(*f));
    auto* view = insideOf(*f);
    // A row picked in the page's selector is marked for every view, and opened.
    view->rowCombo()->setFocus();
    QTest::keyClick(view->rowCombo(), Qt::Key_Home);
    QVERIFY(settled(*f));
    QCOMPARE(view->shownInside()->row.query.row, 0);
    QCOMPARE(f->window.viewState()->markIndex(), 0);
    // Another head.
    f->window.viewState()->setSelection(0, 3);
    QVERIFY(settled(*f));
    QCOMPARE(view->shownInside()->row.query.head, 3);
    QCOMPARE(view->shownInside()->row.query.layer, 0);
    // The mean of the heads: head 0, and the heading says why.
    f->window.viewState()->setSelection(0, core::kMeanHead);
    QVERIFY(settled(*f));
    QCOMPARE(view->shownInside()->row.query.head, 0);
    QVERIFY(view->heading().contains(QStringLiteral("mean of the heads")));
    // Decoder self-attention: the keys after the row are masked, grey −∞ in stage 4.
    f->window.viewState()->setKind(core::AttentionKind::Decoder);
    f->window.viewState()->setMarkedToken(Qt::Horizontal, 0);
    QVERIFY(settled(*f));
    const auto& r = view->shownInside()->row;
    QCOMPARE(r.query.row, 0);
    QVERIFY(!r.visible[1]);
    QVERIFY(std::isnan(view->chart("scores")->valueAt(1, 2)));
    QCOMPARE(view->chart("scores")->valueAt(1, 3), 0.0);
}

void TestInsideView::headSwitchedOff() {
    auto f = openOnInside(2);
    QVERIFY(f);
    QVERIFY(settled(*f));
    auto* view = insideOf(*f);
    const auto isOff = [view](bool off) {
        const auto& r = view->shownInside();
        return r && r->row.headsOff.size() == 4 && r->row.headsOff[2] == off;
    };
    // The shown head switched off (as a Ctrl+click does): the page opens the row of the run with it off.
    core::HeadAblation off;
    off.set({core::AttentionKind::Cross, 1, 2}, true);
    f->controller->viewState()->setHeadsOff(off);
    QVERIFY(QTest::qWaitFor([&] { return isOff(true); }, 30000));
    const auto& r = view->shownInside()->row;
    const int hs = r.headSize;
    bool attends = false;
    for (int d = 0; d < hs; ++d) {
        QCOMPARE(r.concat[std::size_t(2 * hs + d)], 0.0f); // W_O reads zeros in its place
        attends = attends || r.z[std::size_t(d)] != 0.0f;  // while the head itself still attends
    }
    QVERIFY(attends);
    QVERIFY2(view->formulaLine(5).contains(QStringLiteral("This head is switched off")),
             qPrintable(view->formulaLine(5)));
    // Every head on again: the line says nothing of it.
    f->controller->viewState()->setHeadsOff({});
    QVERIFY(QTest::qWaitFor([&] { return isOff(false); }, 30000));
    QVERIFY(!view->formulaLine(5).contains(QStringLiteral("switched off")));
}

void TestInsideView::exports() {
    // The page as pictures (PNG, and vectors in SVG and PDF) and its numbers as explain's JSON.
    auto f = openOnInside(1);
    QVERIFY(f);
    QVERIFY(settled(*f));
    QTemporaryDir dir;
    auto* view = insideOf(*f);
    QString error;
    for (const char* name : {"inside.png", "inside.svg", "inside.pdf"})
        QVERIFY2(ui::Exporter::savePicture(view, dir.filePath(QLatin1String(name)), 1.0, &error),
                 qPrintable(error));
    QCOMPARE(QImage(dir.filePath(QStringLiteral("inside.png"))).size(), view->size());
    QVERIFY(fileBytes(dir.filePath(QStringLiteral("inside.svg"))).contains("<svg"));
    const auto pdf = fileBytes(dir.filePath(QStringLiteral("inside.pdf")));
    QVERIFY(pdf.startsWith("%PDF"));
    QVERIFY2(!pdf.contains("/DCTDecode"), "a heatmap in the PDF was stored as JPEG");
    const auto& r = *view->shownInside();
    const auto path = dir.filePath(QStringLiteral("inside.json"));
    QVERIFY2(ui::Exporter::saveInsideJson(r.row, r.pipeline, QStringLiteral("en-es"), path, &error),
             qPrintable(error));
    const auto j = nlohmann::json::parse(fileBytes(path).toStdString());
    for (const char* key :
         {"kind", "layer", "head", "row", "x", "memory", "q", "k", "v", "products", "scores", "scaled",
          "mask", "weights", "captured_weights", "z", "attn_out", "sampling"})
        QVERIFY2(j.contains(key), key);
    QCOMPARE(j["kind"].get<std::string>(), std::string("cross"));
    QCOMPARE(j["weights"].size(), r.row.weights.size());
    QCOMPARE(j["weights"][0].get<float>(), r.row.weights[0]);
    QCOMPARE(j["sampling"]["chosen"].get<int64_t>(), r.pipeline.chosen);
    // A folder that cannot be written is an error naming the path, and nothing else is left.
    QVERIFY(!ui::Exporter::saveInsideJson(r.row, r.pipeline, QStringLiteral("en-es"),
                                          QStringLiteral("/proc/inside.json"), &error));
    QVERIFY2(error.contains(QStringLiteral("/proc/inside.json")), qPrintable(error));
}

void TestInsideView::runToEndBranchesAndSampling() {
    auto f = openOnInside(0);
    QVERIFY(f);
    QVERIFY(settled(*f));
    auto* view = insideOf(*f);
    // Run to end with the page open: its requests wait for the run instead of stopping it.
    f->controller->runToEnd();
    QVERIFY(f->controller->waitUntilIdle());
    QVERIFY(f->controller->current()->finished);
    QVERIFY(settled(*f));
    const int steps = f->controller->current()->step;
    QVERIFY2(steps > 3, qPrintable(QString::number(steps)));
    QVERIFY(view->shownInside()->pipeline.finished);
    QVERIFY(view->samplingChart()->summary().contains(QStringLiteral("finished")));
    // Back (served from history), then another token forced: the page shows the new branch's state.
    f->controller->back();
    f->controller->back();
    QVERIFY(f->controller->waitUntilIdle());
    QCoreApplication::processEvents();
    const auto chosen =
        f->window.findChild<ui::CandidatesChart*>()->candidates().at(1).id; // not the greedy one
    f->controller->force(chosen);
    QVERIFY(settled(*f));
    const auto& shown = *view->shownInside();
    QCOMPARE(shown.target.back(), chosen);
    QCOMPARE(shown.target.size(), f->controller->current()->snapshot->tgtTokens.size());
    QCOMPARE(shown.row.queryTokens.back().id, chosen);
    // Sampling switched on in the decode panel: the pipeline shown is drawn with those settings.
    f->controller->setSampling({false, 0.7, 5, 0.9, 3});
    view->refresh();
    QVERIFY(settled(*f));
    for (int i = 0; i < 100 && view->shownInside()->pipeline.settings.greedy; ++i)
        QTest::qWait(10);
    const auto& p = view->shownInside()->pipeline;
    QCOMPARE(p.settings.greedy, false);
    QCOMPARE(p.settings.topK, 5);
    QVERIFY(p.keptCount <= 5);
    QVERIFY(view->samplingChart()->summary().contains(QStringLiteral("top-k 5")));
    // The legend has a row of its own below the axes: inside them it covered the last tokens' bars.
    auto* plot = view->samplingChart()->plot();
    QCoreApplication::processEvents();
    plot->replot();
    const QRect legend = plot->legend->outerRect(), axes = plot->axisRect()->outerRect();
    qInfo("sampling chart %dx%d: axes %d..%d px high, legend %d..%d", plot->width(), plot->height(),
          axes.top(), axes.bottom(), legend.top(), legend.bottom());
    QVERIFY(plot->legend->visible());
    QVERIFY(!legend.intersects(axes));
    QVERIFY(legend.top() >= axes.bottom());
    // Every legend row and every token's label has its room: none cut, none on top of the next, and the
    // plot inside its box.
    QVERIFY2(plot->geometry().bottom() < view->samplingChart()->height(),
             qPrintable(QStringLiteral("the plot ends at %1 px in a box %2 px high")
                            .arg(plot->geometry().bottom())
                            .arg(view->samplingChart()->height())));
    QVERIFY2(plot->legend->minimumOuterSizeHint().height() <= legend.height(),
             qPrintable(QStringLiteral("legend needs %1 px, has %2")
                            .arg(plot->legend->minimumOuterSizeHint().height())
                            .arg(legend.height())));
    const int rows = int(plot->yAxis->range().size() + 0.5);
    const int labelHeight = QFontMetrics(plot->yAxis->tickLabelFont()).height();
    QVERIFY2(plot->axisRect()->height() >= rows * labelHeight,
             qPrintable(QStringLiteral("%1 rows of %2 px in %3 px")
                            .arg(rows)
                            .arg(labelHeight)
                            .arg(plot->axisRect()->height())));
    const QByteArray shots = qgetenv("ATTNSCOPE_TEST_SHOTS");
    if (!shots.isEmpty())
        QVERIFY(view->samplingChart()->grab().save(QString::fromLocal8Bit(shots) +
                                                   QStringLiteral("/inside-sampling.png")));
}

QTEST_MAIN(TestInsideView)
#include "test_insideview.moc"
