// The main window with its real widgets, offscreen: typing, stepping, forcing, sampling, exporting and
// refusing a bad model folder, each driven the way a user drives it.

#include "TestModels.h"

#include "core/Model.h"
#include "ui/AnalysisController.h"
#include "ui/AttentionGrid.h"
#include "ui/CandidatesChart.h"
#include "ui/Exporter.h"
#include "ui/HeatmapView.h"
#include "ui/MainWindow.h"
#include "ui/TokenStrip.h"
#include "ui/ViewState.h"

#include "ui/QCustomPlotInclude.h"

#include <QAbstractButton>
#include <QAbstractSpinBox>
#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QMimeData>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QStatusBar>
#include <QSvgRenderer>
#include <QTabBar>
#include <QTemporaryDir>
#include <QtTest>

namespace {
const QString kDemo = QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/demo-random");

std::vector<float> kindData(const ui::RunResultPtr& r, core::AttentionKind k) {
    return r->snapshot->block(k).data;
}
} // namespace

class TestMainWindow : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void typingUpdatesGrid();
    void typingIsDebounced();
    void unknownCharactersAreMarked();
    void threeStepsThenBack();
    void forcingACandidateBranches();
    void sameSeedSameSample();
    void exportsParse();
    void exportToUnwritablePlaceFails();
    void badFolderKeepsModel();
    void tooLongAndEmptyInput();
    void keyboardMovesSelection();
    void tokenClickMarksRow();
    void runToEndAndReset();
    void decoderOnlyModel();
    void settingsRemembered();
    void dropFolderOpensModel();
    void aboutNamesVersions();
    void everyControlHasToolTip();

private:
    struct Fixture {
        ui::MainWindow window{QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models")};
        QLineEdit* edit = nullptr;
        ui::AnalysisController* controller = nullptr;
    };
    std::unique_ptr<Fixture> open(const QString& dir, const QString& text);
    QTemporaryDir tmp_;
    QString wideModel_; // 3 layers × 5 heads, so the grid's shape is read from the model
};

void TestMainWindow::initTestCase() {
    QStandardPaths::setTestModeEnabled(true); // keep the user's settings out of it
    QCoreApplication::setOrganizationName(QStringLiteral("attnscope-tests"));
    QVERIFY(tmp_.isValid());
    auto c = smallConfig(core::Architecture::EncoderDecoder, core::PositionalEncoding::Sinusoidal);
    c.encoderLayers = 3;
    c.decoderLayers = 3;
    c.heads = 5;
    c.dModel = 40;
    c.srcVocabSize = c.tgtVocabSize = 99;
    wideModel_ = tmp_.filePath(QStringLiteral("wide"));
    randomModel(c, 7)->save(wideModel_.toStdString());
}

std::unique_ptr<TestMainWindow::Fixture> TestMainWindow::open(const QString& dir, const QString& text) {
    auto f = std::make_unique<Fixture>();
    f->window.resize(1400, 900);
    f->window.show();
    if (!f->window.openModel(dir))
        return nullptr;
    f->edit = f->window.findChild<QLineEdit*>(QStringLiteral("sourceEdit"));
    f->controller = f->window.controller();
    if (!text.isEmpty()) {
        QTest::keyClicks(f->edit, text);
        if (!f->controller->waitUntilIdle())
            return nullptr;
    }
    return f;
}

void TestMainWindow::typingUpdatesGrid() {
    auto f = open(wideModel_, QStringLiteral("abc"));
    QVERIFY(f);
    auto* grid = f->window.findChild<ui::AttentionGrid*>();
    QVERIFY(grid);
    QCOMPARE(grid->layers(), 3);
    QCOMPARE(grid->heads(), 5);
    for (int l = 0; l < 3; ++l)
        for (int h = ui::AttentionGrid::kMeanHead; h < 5; ++h)
            QVERIFY2(!grid->tileRect(l, h).isEmpty(), qPrintable(QStringLiteral("L%1 H%2").arg(l).arg(h)));
    auto r = f->controller->current();
    QVERIFY(r);
    QCOMPARE(r->snapshot->srcTokens.size(), std::size_t(5)); // <bos> a b c <eos>
    QCOMPARE(r->snapshot->encoder.queries, 5);
    // Typing more re-runs the analysis: the grid follows the new length.
    QTest::keyClicks(f->edit, QStringLiteral("de"));
    QVERIFY(f->controller->waitUntilIdle());
    r = f->controller->current();
    QCOMPARE(r->snapshot->encoder.queries, 7);
    QCOMPARE(r->sourceText, QStringLiteral("abcde"));
    const auto shot = qEnvironmentVariable("ATTNSCOPE_SCREENSHOT");
    if (!shot.isEmpty())
        QVERIFY(f->window.grab().save(shot));
}

void TestMainWindow::typingIsDebounced() {
    auto f = open(kDemo, QString());
    QVERIFY(f);
    QSignalSpy results(f->controller, &ui::AnalysisController::resultChanged);
    // Ten keystrokes faster than the debounce: one analysis, of the final text (latest wins).
    QTest::keyClicks(f->edit, QStringLiteral("abcdefghij"));
    QVERIFY(f->controller->waitUntilIdle());
    QCOMPARE(results.count(), 1);
    QCOMPARE(f->controller->current()->sourceText, QStringLiteral("abcdefghij"));
    QVERIFY(!f->window.findChild<QLabel*>(QStringLiteral("busyLabel"))->isVisible());
    // Work that outlasts a glance shows the busy indicator, and it goes away when done.
    QSignalSpy busy(f->controller, &ui::AnalysisController::busyChanged);
    f->controller->runToEnd();
    QVERIFY(f->controller->waitUntilIdle(60000));
    QTest::qWait(200);
    if (!busy.isEmpty())
        QCOMPARE(busy.last().at(0).toBool(), false);
    QVERIFY(!f->window.findChild<QLabel*>(QStringLiteral("busyLabel"))->isVisible());
}

void TestMainWindow::unknownCharactersAreMarked() {
    auto f = open(kDemo, QStringLiteral("hi"));
    QVERIFY(f);
    f->edit->insert(QStringLiteral("\u00e9")); // not in the vocabulary
    QVERIFY(f->controller->waitUntilIdle());
    auto* strip = f->window.findChild<ui::TokenStrip*>(QStringLiteral("sourceStrip"));
    QVERIFY(strip);
    QCOMPARE(strip->displayTexts(),
             (QStringList{QStringLiteral("<bos>"), QStringLiteral("h"), QStringLiteral("i"),
                          QStringLiteral("\u27E8?\u00e9\u27E9"), QStringLiteral("<eos>")}));
    QVERIFY(f->controller->current()->snapshot->srcTokens[3].unknown);
}

void TestMainWindow::threeStepsThenBack() {
    auto f = open(kDemo, QStringLiteral("hello world"));
    QVERIFY(f);
    auto* step = f->window.findChild<QAction*>(QStringLiteral("stepAction"));
    auto* back = f->window.findChild<QAction*>(QStringLiteral("backAction"));
    QVERIFY(step && back);
    std::vector<ui::RunResultPtr> seen;
    for (int i = 0; i < 3; ++i) {
        step->trigger();
        QVERIFY(f->controller->waitUntilIdle());
        seen.push_back(f->controller->current());
        QCOMPARE(seen.back()->step, i + 1);
    }
    QCOMPARE(seen.back()->snapshot->tgtTokens.size(), std::size_t(4));
    // Back is served from history: the step-2 result is on screen before the worker even runs.
    back->trigger();
    auto r = f->controller->current();
    QCOMPARE(r->step, 2);
    QVERIFY(f->controller->waitUntilIdle());
    r = f->controller->current();
    QCOMPARE(r->step, 2);
    QCOMPARE(r->snapshot->tgtTokens.size(), std::size_t(3));
    for (auto k : {core::AttentionKind::Encoder, core::AttentionKind::Decoder, core::AttentionKind::Cross})
        QCOMPARE(kindData(r, k), kindData(seen[1], k));
    QCOMPARE(r->snapshot->nextTokenLogProbs, seen[1]->snapshot->nextTokenLogProbs);
    // The heatmap shows the same weights: the last query row of decoder self-attention at step 2.
    auto* heat = f->window.findChild<ui::HeatmapView*>();
    f->window.viewState()->setKind(core::AttentionKind::Decoder);
    f->window.viewState()->setSelection(1, 2);
    const auto& dec = seen[1]->snapshot->decoder;
    for (int k = 0; k < 3; ++k)
        QCOMPARE(heat->valueAt(2, k), static_cast<double>(dec.at(1, 2, 2, k)));
}

void TestMainWindow::forcingACandidateBranches() {
    auto f = open(kDemo, QStringLiteral("abc"));
    QVERIFY(f);
    auto* chart = f->window.findChild<ui::CandidatesChart*>();
    QVERIFY(chart);
    const auto top = chart->candidates();
    QVERIFY(top.size() >= 3);
    // Clicking the third-best bar forces it: greedy would have taken the first.
    const QPoint at = chart->barCenter(2);
    QVERIFY(!at.isNull());
    auto* plot = chart->plot();
    QTest::mouseClick(plot, Qt::LeftButton, {}, plot->mapFrom(chart, at));
    QVERIFY(f->controller->waitUntilIdle());
    const auto r = f->controller->current();
    QCOMPARE(r->step, 1);
    QCOMPARE(r->snapshot->tgtTokens.back().id, top[2].id);
    QVERIFY(top[2].id != top[0].id);
    QCOMPARE(r->decodedText, top[2].text);
}

void TestMainWindow::sameSeedSameSample() {
    auto runOnce = [this](int seed) -> std::vector<int64_t> {
        auto f = open(kDemo, QString());
        if (!f)
            return {};
        f->window.findChild<QCheckBox*>(QStringLiteral("sampleCheck"))->setChecked(true);
        f->window.findChild<QSpinBox*>(QStringLiteral("seed"))->setValue(seed);
        QTest::keyClicks(f->edit, QStringLiteral("the cat"));
        f->controller->waitUntilIdle();
        for (int i = 0; i < 12; ++i) {
            f->controller->step();
            f->controller->waitUntilIdle();
        }
        std::vector<int64_t> ids;
        for (const auto& t : f->controller->current()->snapshot->tgtTokens)
            ids.push_back(t.id);
        return ids;
    };
    const auto a = runOnce(42), b = runOnce(42), c = runOnce(7);
    QCOMPARE(a.size(), std::size_t(13)); // <bos> + 12 sampled
    QCOMPARE(a, b);
    QVERIFY(a != c); // a random model's distribution is nearly flat: another seed differs
    // Greedy takes the most likely token of the distribution shown before the step.
    auto f = open(kDemo, QStringLiteral("the cat"));
    QVERIFY(f);
    const auto before = f->controller->current();
    const auto& lp = before->snapshot->nextTokenLogProbs;
    const auto best = std::max_element(lp.begin(), lp.end()) - lp.begin();
    QCOMPARE(before->top.front().id, static_cast<int64_t>(best));
    f->controller->step();
    QVERIFY(f->controller->waitUntilIdle());
    QCOMPARE(f->controller->current()->snapshot->tgtTokens.back().id, static_cast<int64_t>(best));
}

void TestMainWindow::exportsParse() {
    auto f = open(kDemo, QStringLiteral("hello"));
    QVERIFY(f);
    for (int i = 0; i < 3; ++i)
        f->controller->step();
    QVERIFY(f->controller->waitUntilIdle());
    const auto r = f->controller->current();
    const auto& snap = *r->snapshot;
    const int T = static_cast<int>(snap.tgtTokens.size()), S = static_cast<int>(snap.srcTokens.size());
    QCOMPARE(T, 4);
    QCOMPARE(S, 7);
    QTemporaryDir dir;
    QString error;
    auto* page = f->window.findChild<QWidget*>(QStringLiteral("attentionPage"));
    QVERIFY(page);

    // Pictures.
    const auto png = dir.filePath(QStringLiteral("view.png"));
    QVERIFY2(ui::Exporter::savePicture(page, png, 2.0, &error), qPrintable(error));
    const QImage img(png);
    QVERIFY(!img.isNull());
    QCOMPARE(img.size(), page->size() * 2);
    const auto svg = dir.filePath(QStringLiteral("view.svg"));
    QVERIFY2(ui::Exporter::savePicture(page, svg, 1.0, &error), qPrintable(error));
    QSvgRenderer renderer(svg);
    QVERIFY(renderer.isValid());
    const auto pdf = dir.filePath(QStringLiteral("view.pdf"));
    QVERIFY2(ui::Exporter::savePicture(page, pdf, 1.0, &error), qPrintable(error));
    QFile pdfFile(pdf);
    QVERIFY(pdfFile.open(QIODevice::ReadOnly));
    const auto pdfBytes = pdfFile.readAll();
    QVERIFY(pdfBytes.startsWith("%PDF-"));
    QVERIFY(pdfBytes.trimmed().endsWith("%%EOF"));
    QVERIFY(!ui::Exporter::savePicture(page, dir.filePath(QStringLiteral("view.bmpx")), 1.0, &error));
    QVERIFY(error.contains(QStringLiteral("bmpx")));

    // One head as CSV: a header and T rows of S weights for cross-attention.
    const auto csv = dir.filePath(QStringLiteral("head.csv"));
    QVERIFY2(ui::Exporter::saveHeadCsv(snap, core::AttentionKind::Cross, 1, 2, csv, &error),
             qPrintable(error));
    QFile csvFile(csv);
    QVERIFY(csvFile.open(QIODevice::ReadOnly));
    const auto lines = QString::fromUtf8(csvFile.readAll()).split(QStringLiteral("\r\n"), Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 1 + T);
    for (int q = 0; q < T; ++q) {
        const auto cells = lines[q + 1].split(QLatin1Char(','));
        QCOMPARE(cells.size(), 1 + S);
        for (int k = 0; k < S; ++k)
            QCOMPARE(cells[k + 1].toFloat(), snap.cross.at(1, 2, q, k));
    }
    // Every head of a kind as long-form CSV: L·H·T rows.
    const auto all = dir.filePath(QStringLiteral("all.csv"));
    QVERIFY2(ui::Exporter::saveKindCsv(snap, core::AttentionKind::Decoder, all, &error), qPrintable(error));
    QFile allFile(all);
    QVERIFY(allFile.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(allFile.readAll()).split(QStringLiteral("\r\n"), Qt::SkipEmptyParts).size(),
             1 + 2 * 4 * T);

    // JSON in the dump format, with the right shapes.
    const auto kindJson = dir.filePath(QStringLiteral("cross.json"));
    QVERIFY2(ui::Exporter::saveKindJson(snap, core::AttentionKind::Cross, r->sourceText, r->decodedText,
                                        kindJson, &error),
             qPrintable(error));
    QFile kf(kindJson);
    QVERIFY(kf.open(QIODevice::ReadOnly));
    QJsonParseError perr;
    const auto doc = QJsonDocument::fromJson(kf.readAll(), &perr);
    QVERIFY2(perr.error == QJsonParseError::NoError, qPrintable(perr.errorString()));
    const auto cross =
        doc.object()[QStringLiteral("attention")].toObject()[QStringLiteral("cross")].toArray();
    QCOMPARE(cross.size(), 2);
    QCOMPARE(cross[0].toArray().size(), 4);
    QCOMPARE(cross[0].toArray()[0].toArray().size(), T);
    QCOMPARE(cross[0].toArray()[0].toArray()[0].toArray().size(), S);
    QVERIFY(!doc.object()[QStringLiteral("attention")].toObject().contains(QStringLiteral("encoder")));
    QCOMPARE(doc.object()[QStringLiteral("src_text")].toString(), QStringLiteral("hello"));
    QCOMPARE(doc.object()[QStringLiteral("tgt_tokens")].toArray().size(), T);
    QCOMPARE(doc.object()[QStringLiteral("next_token_logprobs")].toArray().size(), 99);

    const auto headJson = dir.filePath(QStringLiteral("head.json"));
    QVERIFY2(ui::Exporter::saveHeadJson(snap, core::AttentionKind::Decoder, 0, ui::ViewState::kMeanHead,
                                        r->sourceText, r->decodedText, headJson, &error),
             qPrintable(error));
    QFile hf(headJson);
    QVERIFY(hf.open(QIODevice::ReadOnly));
    const auto hdoc = QJsonDocument::fromJson(hf.readAll(), &perr);
    QVERIFY2(perr.error == QJsonParseError::NoError, qPrintable(perr.errorString()));
    const auto dec =
        hdoc.object()[QStringLiteral("attention")].toObject()[QStringLiteral("decoder")].toArray();
    QCOMPARE(dec.size(), 1);
    QCOMPARE(dec[0].toArray().size(), 1);
    const auto m = dec[0].toArray()[0].toArray();
    QCOMPARE(m.size(), T);
    float mean = 0.0f;
    for (int h = 0; h < 4; ++h)
        mean += snap.decoder.at(0, h, 3, 1) / 4.0f;
    QVERIFY(std::abs(m[3].toArray()[1].toDouble() - mean) < 1e-6);
    QCOMPARE(hdoc.object()[QStringLiteral("selection")].toObject()[QStringLiteral("head")].toString(),
             QStringLiteral("mean"));
}

void TestMainWindow::exportToUnwritablePlaceFails() {
    auto f = open(kDemo, QStringLiteral("hi"));
    QVERIFY(f);
    QString error;
    const QString path = QStringLiteral("/nonexistent-dir/attention.csv");
    QVERIFY(!ui::Exporter::saveKindCsv(*f->controller->current()->snapshot, core::AttentionKind::Encoder,
                                       path, &error));
    QVERIFY2(error.contains(QStringLiteral("/nonexistent-dir")), qPrintable(error));
    QVERIFY(!QFile::exists(path));
    // A head that does not exist is refused with its coordinates.
    QVERIFY(!ui::Exporter::saveHeadCsv(*f->controller->current()->snapshot, core::AttentionKind::Encoder, 7,
                                       0, QDir::temp().filePath(QStringLiteral("x.csv")), &error));
    QVERIFY2(error.contains(QStringLiteral("layer 7")), qPrintable(error));
}

void TestMainWindow::badFolderKeepsModel() {
    auto f = open(kDemo, QStringLiteral("hi"));
    QVERIFY(f);
    const auto before = f->window.model();
    QTemporaryDir broken;
    QFile cfg(broken.filePath(QStringLiteral("config.json")));
    QVERIFY(cfg.open(QIODevice::WriteOnly));
    cfg.write("{\"d_model\": 30, \"heads\": 4}");
    cfg.close();
    QVERIFY(!f->window.openModel(broken.path()));
    QVERIFY2(f->window.lastError().contains(QStringLiteral("not divisible")),
             qPrintable(f->window.lastError()));
    QVERIFY(f->window.statusBar()->currentMessage().contains(QStringLiteral("Cannot open model")));
    auto* label = f->window.findChild<QLabel*>(QStringLiteral("messageLabel"));
    QVERIFY(label && label->isVisible() && label->text().contains(QStringLiteral("config.json")));
    QCOMPARE(f->window.model(), before);
    QVERIFY(!f->window.openModel(QStringLiteral("/nonexistent-model-folder")));
    QVERIFY(f->window.lastError().contains(QStringLiteral("not a model directory")));
    QCOMPARE(f->window.model(), before);
    // The previous model still answers.
    QTest::keyClicks(f->edit, QStringLiteral("!"));
    QVERIFY(f->controller->waitUntilIdle());
    QCOMPARE(f->controller->current()->sourceText, QStringLiteral("hi!"));
    QCOMPARE(f->controller->current()->model, before);
}

void TestMainWindow::tooLongAndEmptyInput() {
    auto f = open(kDemo, QStringLiteral("ok"));
    QVERIFY(f);
    auto* step = f->window.findChild<QAction*>(QStringLiteral("stepAction"));
    QVERIFY(step->isEnabled());
    f->edit->setText(QString(300, QLatin1Char('a'))); // max_len 256
    QVERIFY(f->controller->waitUntilIdle());
    QVERIFY2(f->window.lastError().contains(QStringLiteral("at most 256")), qPrintable(f->window.lastError()));
    // Nothing of the previous text stays on screen, and decoding has nothing to act on.
    QVERIFY(!f->controller->current());
    QVERIFY(!step->isEnabled());
    QCOMPARE(f->window.findChild<ui::TokenStrip*>(QStringLiteral("sourceStrip"))->count(), 0);
    f->controller->step();
    QVERIFY(f->controller->waitUntilIdle());
    QVERIFY(!f->controller->current());
    QVERIFY(f->window.lastError().contains(QStringLiteral("at most 256")));
    // Shortening the text brings the analysis back and clears the error.
    f->edit->setText(QStringLiteral("fine"));
    QVERIFY(f->controller->waitUntilIdle());
    QVERIFY(f->controller->current());
    QVERIFY(f->window.lastError().isEmpty());
    QVERIFY(step->isEnabled());
    QSignalSpy cleared(f->controller, &ui::AnalysisController::cleared);
    f->edit->clear();
    QVERIFY(f->controller->waitUntilIdle());
    QCOMPARE(cleared.count(), 1);
    QVERIFY(!f->controller->current());
    QVERIFY(f->window.lastError().isEmpty());
}

void TestMainWindow::keyboardMovesSelection() {
    auto f = open(wideModel_, QStringLiteral("abc"));
    QVERIFY(f);
    auto* grid = f->window.findChild<ui::AttentionGrid*>();
    auto* state = f->window.viewState();
    grid->setFocus();
    QCOMPARE(state->layer(), 0);
    QCOMPARE(state->head(), 0);
    QTest::keyClick(grid, Qt::Key_Right);
    QTest::keyClick(grid, Qt::Key_Right);
    QCOMPARE(state->head(), 2);
    QTest::keyClick(grid, Qt::Key_PageDown);
    QCOMPARE(state->layer(), 1);
    for (int i = 0; i < 5; ++i)
        QTest::keyClick(grid, Qt::Key_Right);
    QCOMPARE(state->head(), ui::ViewState::kMeanHead); // the mean sits after the last head
    auto* heat = f->window.findChild<ui::HeatmapView*>();
    const auto& b = f->controller->current()->snapshot->encoder;
    double mean = 0;
    for (int h = 0; h < 5; ++h)
        mean += b.at(1, h, 2, 1) / 5.0;
    QVERIFY(std::abs(heat->valueAt(2, 1) - mean) < 1e-6);
    // Clicking a tile selects it.
    QTest::mouseClick(grid, Qt::LeftButton, {}, grid->tileRect(2, 3).center());
    QCOMPARE(state->layer(), 2);
    QCOMPARE(state->head(), 3);
    QCOMPARE(heat->valueAt(1, 1), static_cast<double>(b.at(2, 3, 1, 1)));
}

void TestMainWindow::tokenClickMarksRow() {
    auto f = open(kDemo, QStringLiteral("abc"));
    QVERIFY(f);
    auto* strip = f->window.findChild<ui::TokenStrip*>(QStringLiteral("sourceStrip"));
    auto* state = f->window.viewState();
    QTest::mouseClick(strip, Qt::LeftButton, {}, strip->chipRect(2).center());
    QCOMPARE(state->markIndex(), 2);
    QCOMPARE(state->markOrientation(), Qt::Horizontal); // encoder: a source token is a query row
    QCOMPARE(strip->marked(), 2);
    QTest::mouseClick(strip, Qt::LeftButton, Qt::ShiftModifier, strip->chipRect(1).center());
    QCOMPARE(state->markOrientation(), Qt::Vertical);
    QCOMPARE(state->markIndex(), 1);
    state->setKind(core::AttentionKind::Cross); // cross: a source token is a key column
    QTest::mouseClick(strip, Qt::LeftButton, {}, strip->chipRect(3).center());
    QCOMPARE(state->markOrientation(), Qt::Vertical);
    QCOMPARE(state->markIndex(), 3);
    auto* kind = f->window.findChild<QComboBox*>(QStringLiteral("kindCombo"));
    QCOMPARE(kind->currentData().toInt(), static_cast<int>(core::AttentionKind::Cross));
}

void TestMainWindow::runToEndAndReset() {
    auto f = open(kDemo, QStringLiteral("abc"));
    QVERIFY(f);
    f->window.findChild<QAction*>(QStringLiteral("runAction"))->trigger();
    QVERIFY(f->controller->waitUntilIdle(60000));
    auto r = f->controller->current();
    QVERIFY(r->finished);
    // A random model rarely says <eos>: it runs to max_len (256) or stops at <eos>.
    const auto eos = f->window.model()->targetTokenizer().vocab().eos();
    QVERIFY(r->snapshot->tgtTokens.size() == 256 || r->snapshot->tgtTokens.back().id == eos);
    QVERIFY(!f->window.findChild<QAction*>(QStringLiteral("stepAction"))->isEnabled());
    f->window.findChild<QAction*>(QStringLiteral("resetAction"))->trigger();
    QCOMPARE(f->controller->current()->step, 0);
    QVERIFY(f->controller->waitUntilIdle());
    QCOMPARE(f->controller->current()->step, 0);
    QCOMPARE(f->controller->current()->snapshot->tgtTokens.size(), std::size_t(1));
}

void TestMainWindow::decoderOnlyModel() {
    auto c = smallConfig(core::Architecture::DecoderOnly, core::PositionalEncoding::Learned);
    c.srcVocabSize = c.tgtVocabSize = 99;
    const auto dir = tmp_.filePath(QStringLiteral("lm"));
    randomModel(c, 3)->save(dir.toStdString());
    auto f = open(dir, QStringLiteral("once upon"));
    QVERIFY(f);
    auto* kind = f->window.findChild<QComboBox*>(QStringLiteral("kindCombo"));
    QCOMPARE(kind->count(), 1);
    QCOMPARE(kind->currentData().toInt(), static_cast<int>(core::AttentionKind::Decoder));
    QCOMPARE(f->window.viewState()->kind(), core::AttentionKind::Decoder);
    const auto r = f->controller->current();
    QVERIFY(r->snapshot->srcTokens.empty());
    QCOMPARE(r->snapshot->decoder.queries, 10); // <bos> + 9 characters of the prompt
    auto* grid = f->window.findChild<ui::AttentionGrid*>();
    QCOMPARE(grid->layers(), 2);
    QCOMPARE(grid->heads(), 4);
    f->controller->step();
    QVERIFY(f->controller->waitUntilIdle());
    QCOMPARE(f->controller->current()->snapshot->decoder.queries, 11);
}

void TestMainWindow::settingsRemembered() {
    {
        auto f = open(kDemo, QString());
        QVERIFY(f);
        f->window.findChild<QComboBox*>(QStringLiteral("colorMapCombo"))
            ->setCurrentText(QStringLiteral("magma"));
        f->window.findChild<QCheckBox*>(QStringLiteral("perHeadCheck"))->setChecked(true);
        f->window.resize(1111, 777);
        f->window.close();
    }
    ui::MainWindow w(QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models"));
    w.restoreSettings();
    QCOMPARE(w.viewState()->colorMap().name(), QStringLiteral("magma"));
    QCOMPARE(w.viewState()->scaleMode(), ui::ScaleMode::PerHead);
    QCOMPARE(w.size(), QSize(1111, 777));
    QCOMPARE(QSettings().value(QStringLiteral("model/last")).toString(), QDir(kDemo).absolutePath());
    // Put the defaults back for the other tests.
    w.findChild<QComboBox*>(QStringLiteral("colorMapCombo"))->setCurrentText(QStringLiteral("viridis"));
    w.findChild<QCheckBox*>(QStringLiteral("perHeadCheck"))->setChecked(false);
}

void TestMainWindow::dropFolderOpensModel() {
    auto f = open(kDemo, QStringLiteral("ab"));
    QVERIFY(f);
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(wideModel_)});
    QDragEnterEvent enter(QPoint(50, 50), Qt::CopyAction, &mime, Qt::LeftButton, {});
    QCoreApplication::sendEvent(&f->window, &enter);
    QVERIFY(enter.isAccepted());
    QSignalSpy loaded(&f->window, &ui::MainWindow::modelLoadFinished);
    QDropEvent drop(QPointF(50, 50), Qt::CopyAction, &mime, Qt::LeftButton, {});
    QCoreApplication::sendEvent(&f->window, &drop);
    // The model loads on a background thread: the window keeps its old model until then.
    QVERIFY(loaded.wait(30000));
    QCOMPARE(loaded.at(0).at(0).toBool(), true);
    QCOMPARE(QString::fromStdString(f->window.model()->directory()), QDir(wideModel_).absolutePath());
    QVERIFY(f->controller->waitUntilIdle());
    QCOMPARE(f->controller->current()->snapshot->encoder.heads,
             5); // the text is re-analysed on the new model
    QCOMPARE(f->controller->current()->sourceText, QStringLiteral("ab"));
    // A file is not a model folder: the drag is refused.
    QMimeData fileMime;
    fileMime.setUrls({QUrl::fromLocalFile(kDemo + QStringLiteral("/config.json"))});
    QDragEnterEvent refuse(QPoint(50, 50), Qt::CopyAction, &fileMime, Qt::LeftButton, {});
    refuse.setAccepted(false);
    QCoreApplication::sendEvent(&f->window, &refuse);
    QVERIFY(!refuse.isAccepted());
}

void TestMainWindow::aboutNamesVersions() {
    const auto text = ui::MainWindow::aboutText();
    QVERIFY2(text.contains(QString::fromLatin1(qVersion())), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("LibTorch 1.")) || text.contains(QStringLiteral("LibTorch 2.")),
             qPrintable(text));
    // Every shortcut the help lists is one the window really has.
    auto f = open(kDemo, QString());
    QVERIFY(f);
    QStringList have;
    for (auto* a : f->window.findChildren<QAction*>())
        for (const auto& k : a->shortcuts())
            have << k.toString(QKeySequence::PortableText);
    for (const char* key : {"Ctrl+Right", "Ctrl+Left", "Ctrl+End", "Ctrl+Home", "Ctrl+1", "Ctrl+2", "Ctrl+3",
                            "Ctrl+K", "Ctrl+L", "Alt+1", "Alt+2", "Ctrl+O", "Ctrl+E", "Ctrl+Shift+E", "F1"})
        QVERIFY2(have.contains(QLatin1String(key)), key);
    QVERIFY(ui::MainWindow::shortcutsText().contains(QStringLiteral("Ctrl+Shift+E")));
}

void TestMainWindow::everyControlHasToolTip() {
    auto f = open(kDemo, QStringLiteral("abc"));
    QVERIFY(f);
    QStringList missing;
    int checked = 0;
    for (auto* w : f->window.findChildren<QWidget*>()) {
        const bool control = qobject_cast<QAbstractButton*>(w) || qobject_cast<QComboBox*>(w) ||
                             qobject_cast<QAbstractSpinBox*>(w) || qobject_cast<QLineEdit*>(w);
        // Qt's own parts of composite widgets (a spin box's line edit, the tab bar's scroll arrows,
        // a line edit's clear button) carry the tooltip of the widget they belong to.
        const bool internal = w->objectName().startsWith(QLatin1String("qt_")) ||
                              qobject_cast<QAbstractSpinBox*>(w->parentWidget()) ||
                              qobject_cast<QComboBox*>(w->parentWidget()) ||
                              qobject_cast<QTabBar*>(w->parentWidget()) ||
                              qobject_cast<QLineEdit*>(w->parentWidget());
        if (!control || internal)
            continue;
        ++checked;
        if (w->toolTip().isEmpty())
            missing << QStringLiteral("%1 '%2'").arg(QString::fromLatin1(w->metaObject()->className()),
                                                     w->objectName());
    }
    qInfo("%d controls checked", checked);
    QVERIFY(checked >= 15);
    QVERIFY2(missing.isEmpty(), qPrintable(missing.join(QStringLiteral(", "))));
}

QTEST_MAIN(TestMainWindow)
#include "test_mainwindow.moc"
