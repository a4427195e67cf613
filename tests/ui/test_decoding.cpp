// Decoding in the window: stepping and stepping back from history, forcing a candidate, sampling with a
// seed, running to the end and resetting.

#include "tests/support/WindowFixture.h"

#include "ui/attention/CandidatesChart.h"
#include "ui/attention/TokenStrip.h"
#include "ui/base/QCustomPlotInclude.h"
#include "ui/base/ViewState.h"
#include "ui/export/Exporter.h"
#include "ui/views/AttentionGrid.h"
#include "ui/views/HeatmapView.h"

#include <QAbstractButton>
#include <QAbstractSpinBox>
#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFontMetrics>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMimeData>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStatusBar>
#include <QSvgRenderer>
#include <QTabBar>
#include <QTemporaryDir>

#include <cmath>
#include <numeric>

namespace {
std::vector<float> kindData(const ui::RunResultPtr& r, core::AttentionKind k) {
    return r->snapshot->block(k).data;
}
} // namespace

class TestDecoding : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void threeStepsThenBack();
    void forcingACandidateBranches();
    void labelClickForces();
    void chartShowsTheDraw();
    void sameSeedSameSample();
    void runToEndAndReset();
    void enterInSourceRunsToEnd();
    void longDecodeKeepsWindowWidth();
    void languageModelContinuesThePrompt();

private:
    std::unique_ptr<WindowFixture> open(const QString& dir, const QString& text) {
        return openWindow(dir, text);
    }
    QTemporaryDir tmp_;
};

void TestDecoding::initTestCase() {
    isolateSettings();
    QVERIFY(tmp_.isValid());
}

void TestDecoding::threeStepsThenBack() {
    auto f = open(kDemoModel, QStringLiteral("hello world"));
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

void TestDecoding::forcingACandidateBranches() {
    auto f = open(kDemoModel, QStringLiteral("abc"));
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
    // The forced token is marked in the target strip; the next, sampled, one is not.
    QCoreApplication::processEvents();
    auto* strip = f->window.findChild<ui::TokenStrip*>(QStringLiteral("targetStrip"));
    QVERIFY(strip->isForced(1));
    f->controller->step();
    QVERIFY(f->controller->waitUntilIdle());
    QCoreApplication::processEvents();
    QVERIFY(strip->isForced(1));
    QVERIFY(!strip->isForced(2));
    f->controller->reset();
    QVERIFY(f->controller->waitUntilIdle());
    QCoreApplication::processEvents();
    QVERIFY(!strip->isForced(1));
}

void TestDecoding::labelClickForces() {
    // Only the bar forced its token; the label beside it, where a reader points, did nothing.
    auto f = open(kDemoModel, QStringLiteral("abc"));
    QVERIFY(f);
    auto* chart = f->window.findChild<ui::CandidatesChart*>();
    const auto top = chart->candidates();
    QVERIFY(top.size() >= 4);
    const QPoint at = chart->labelCenter(3);
    QVERIFY(!at.isNull());
    QVERIFY(at.x() < chart->barCenter(3).x());
    auto* plot = chart->plot();
    QTest::mouseClick(plot, Qt::LeftButton, {}, plot->mapFrom(chart, at));
    QVERIFY(f->controller->waitUntilIdle());
    QCOMPARE(f->controller->current()->snapshot->tgtTokens.back().id, top[3].id);
}

void TestDecoding::chartShowsTheDraw() {
    // The chart ignored temperature, top-k and top-p; it shows the distribution Step draws from, computed
    // here by hand from the log-probabilities: softmax(lp / T) over the 3 most likely, renormalised.
    auto f = open(kDemoModel, QStringLiteral("the cat"));
    QVERIFY(f);
    f->window.findChild<QCheckBox*>(QStringLiteral("sampleCheck"))->setChecked(true);
    f->window.findChild<QDoubleSpinBox*>(QStringLiteral("temperature"))->setValue(0.5);
    f->window.findChild<QSpinBox*>(QStringLiteral("topK"))->setValue(3);
    QVERIFY(f->controller->waitUntilIdle());
    QCoreApplication::processEvents();
    auto* chart = f->window.findChild<ui::CandidatesChart*>();
    const auto& lp = f->controller->current()->snapshot->nextTokenLogProbs;
    std::vector<int> order(lp.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return lp[size_t(a)] > lp[size_t(b)]; });
    double z = 0;
    for (int r = 0; r < 3; ++r)
        z += std::exp((lp[size_t(order[size_t(r)])] - lp[size_t(order[0])]) / 0.5);
    const auto& shown = chart->candidates();
    QCOMPARE(int(shown.size()), ui::CandidatesChart::kShown);
    double worst = 0;
    for (int r = 0; r < int(shown.size()); ++r) {
        QCOMPARE(shown[size_t(r)].id, int64_t(order[size_t(r)]));
        QCOMPARE(shown[size_t(r)].cut, r >= 3);
        const double expected =
            r < 3 ? std::exp((lp[size_t(order[size_t(r)])] - lp[size_t(order[0])]) / 0.5) / z : 0;
        worst = std::max(worst, std::abs(shown[size_t(r)].sampled - expected));
        QVERIFY(std::abs(shown[size_t(r)].probability - std::exp(double(lp[size_t(order[size_t(r)])]))) <
                1e-6);
    }
    qInfo("drawn probabilities against softmax(lp / 0.5) over the top 3: largest difference %.3g", worst);
    QVERIFY(worst < 1e-6);
    QVERIFY2(chart->axisText().contains(QStringLiteral("drawn from 3 tokens")),
             qPrintable(chart->axisText()));
    // The outlined token is the one Step takes.
    const auto chosen = chart->chosen();
    f->controller->step();
    QVERIFY(f->controller->waitUntilIdle());
    QCOMPARE(f->controller->current()->snapshot->tgtTokens.back().id, chosen);
    const QByteArray shots = qgetenv("ATTNSCOPE_TEST_SHOTS"); // a forced token, then the chart of the draw
    if (!shots.isEmpty()) {
        QCoreApplication::processEvents();
        const auto second = chart->candidates().at(1).id;
        QTest::mouseClick(chart->plot(), Qt::LeftButton, {},
                          chart->plot()->mapFrom(chart, chart->labelCenter(1)));
        QVERIFY(f->controller->waitUntilIdle());
        QCOMPARE(f->controller->current()->snapshot->tgtTokens.back().id, second);
        QTest::qWait(50);
        QVERIFY(
            f->window.grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/candidates-sampled.png")));
    }
}

void TestDecoding::sameSeedSameSample() {
    auto runOnce = [this](int seed) -> std::vector<int64_t> {
        auto f = open(kDemoModel, QString());
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
    auto f = open(kDemoModel, QStringLiteral("the cat"));
    QVERIFY(f);
    const auto before = f->controller->current();
    const auto& lp = before->snapshot->nextTokenLogProbs;
    const auto best = std::max_element(lp.begin(), lp.end()) - lp.begin();
    auto* chart = f->window.findChild<ui::CandidatesChart*>();
    QCOMPARE(chart->candidates().front().id, static_cast<int64_t>(best));
    QCOMPARE(chart->chosen(), static_cast<int64_t>(best));
    f->controller->step();
    QVERIFY(f->controller->waitUntilIdle());
    QCOMPARE(f->controller->current()->snapshot->tgtTokens.back().id, static_cast<int64_t>(best));
}

void TestDecoding::runToEndAndReset() {
    auto f = open(kDemoModel, QStringLiteral("abc"));
    QVERIFY(f);
    f->window.findChild<QAction*>(QStringLiteral("runAction"))->trigger();
    QVERIFY(f->controller->waitUntilIdle(60000));
    auto r = f->controller->current();
    QVERIFY(r->finished);
    // A random model rarely says <eos>: it runs to max_len (256) or stops at <eos>.
    const auto eos = f->window.model()->targetTokenizer().vocab().eos();
    QVERIFY(r->snapshot->tgtTokens.size() == 256 || r->snapshot->tgtTokens.back().id == eos);
    QCOMPARE(r->ending,
             r->snapshot->tgtTokens.back().id == eos ? core::RunEnding::Eos : core::RunEnding::MaxLength);
    QVERIFY(!f->window.findChild<QAction*>(QStringLiteral("stepAction"))->isEnabled());
    f->window.findChild<QAction*>(QStringLiteral("resetAction"))->trigger();
    QCOMPARE(f->controller->current()->step, 0);
    QVERIFY(f->controller->waitUntilIdle());
    QCOMPARE(f->controller->current()->step, 0);
    QCOMPARE(f->controller->current()->snapshot->tgtTokens.size(), std::size_t(1));
}

void TestDecoding::enterInSourceRunsToEnd() {
    // A trained model, so the run ends at <eos> well before max_len.
    auto f = open(QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/reverse"), QStringLiteral("abcd"));
    QVERIFY(f);
    QTest::keyClick(f->edit, Qt::Key_Return);
    QVERIFY(f->controller->waitUntilIdle(60000));
    const auto r = f->controller->current();
    QVERIFY(r->finished);
    QCOMPARE(r->snapshot->tgtTokens.back().id, f->window.model()->targetTokenizer().vocab().eos());
    QCOMPARE(r->ending, core::RunEnding::Eos);
    QCoreApplication::processEvents();
    // The chart shows no next distribution a finished run will not draw from, and says what ended it; so
    // does the decoding line.
    auto* chart = f->window.findChild<ui::CandidatesChart*>();
    QVERIFY(chart->candidates().empty());
    QCOMPARE(chart->axisText(), QStringLiteral("finished: the model decoded <eos>"));
    QVERIFY(!chart->plot()->xAxis->tickLabels()); // no scale of nothing, only the sentence
    QVERIFY(!chart->plot()->xAxis->grid()->visible());
    auto* status = f->window.findChild<QLabel*>(QStringLiteral("decodeStatus"));
    QVERIFY(status);
    QVERIFY2(status->text().contains(QStringLiteral("(finished: the model decoded <eos>)")),
             qPrintable(status->text()));
    // Back one step: the run is open again, and its candidates are back.
    f->controller->back();
    QVERIFY(f->controller->waitUntilIdle());
    QCoreApplication::processEvents();
    QCOMPARE(f->controller->current()->ending, core::RunEnding::Open);
    QVERIFY(!chart->candidates().empty());
    QVERIFY(chart->plot()->xAxis->tickLabels());
    QVERIFY2(!status->text().contains(QStringLiteral("finished")), qPrintable(status->text()));
}

void TestDecoding::longDecodeKeepsWindowWidth() {
    QStringList text;
    for (int i = 0; i < 9; ++i)
        text << QStringLiteral("The old man walked to the small white house near the river.");
    auto f =
        open(QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/en-es"), text.join(QLatin1Char(' ')));
    QVERIFY(f);
    f->window.findChild<QAction*>(QStringLiteral("runAction"))->trigger();
    QVERIFY(f->controller->waitUntilIdle(60000));
    QVERIFY(f->controller->current()->snapshot->tgtTokens.size() > 60);
    QCoreApplication::processEvents();
    // The decoded text is cut in its label instead of asking for a window wider than the screen.
    QVERIFY2(f->window.minimumSizeHint().width() < 1400,
             qPrintable(QString::number(f->window.minimumSizeHint().width())));
    // One line, cut at a character's edge with "…", the latest tokens kept; the tooltip has it all.
    auto* status = f->window.findChild<QLabel*>(QStringLiteral("decodeStatus"));
    const QString decoded = f->controller->current()->decodedText;
    const QString shown = status->text();
    qInfo("%lld characters decoded; the line shows %lld: %s", static_cast<long long>(decoded.size()),
          static_cast<long long>(shown.size()), qPrintable(shown));
    QVERIFY2(shown.startsWith(QStringLiteral("step ")) && shown.contains(QStringLiteral("decoded: \u2026")),
             qPrintable(shown));
    const QString kept = shown.mid(shown.indexOf(QChar(0x2026)) + 1);
    QVERIFY(!kept.isEmpty() && decoded.endsWith(kept));
    QVERIFY(QFontMetrics(status->font()).horizontalAdvance(shown) <= status->contentsRect().width());
    QVERIFY(status->toolTip().contains(decoded));
}

void TestDecoding::languageModelContinuesThePrompt() {
    // The built-in language model: the prompt is the decoder's input, and stepping continues it.
    const QString lm = QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/tiny-lm");
    const QString prompt = QStringLiteral("And God said unto Moses");
    auto f = open(lm, prompt);
    QVERIFY(f);
    auto* kinds = f->window.findChild<QComboBox*>(QStringLiteral("kindCombo"));
    QCOMPARE(kinds->count(), 1); // decoder self-attention only
    QCOMPARE(f->window.viewState()->kind(), core::AttentionKind::Decoder);
    const auto promptTokens = f->window.model()->targetTokens(prompt.toStdString());
    const auto first = f->controller->current();
    QCOMPARE(first->snapshot->tgtTokens.size(), promptTokens.size());
    QVERIFY(first->snapshot->encoder.empty() && first->snapshot->cross.empty());
    for (int i = 0; i < 6; ++i) {
        f->controller->step();
        QVERIFY(f->controller->waitUntilIdle());
    }
    const auto r = f->controller->current();
    QCOMPARE(r->snapshot->tgtTokens.size(), promptTokens.size() + 6);
    for (std::size_t i = 0; i < promptTokens.size(); ++i)
        QCOMPARE(r->snapshot->tgtTokens[i].id, promptTokens[i].id); // the prompt stays as typed
    const auto& d = r->snapshot->decoder;
    QCOMPARE(d.queries, static_cast<int>(promptTokens.size()) + 6);
    // Sampling with a seed continues the same prompt the same way twice.
    auto sampled = [&](int seed) {
        auto g = open(lm, QString());
        g->window.findChild<QCheckBox*>(QStringLiteral("sampleCheck"))->setChecked(true);
        g->window.findChild<QSpinBox*>(QStringLiteral("seed"))->setValue(seed);
        QTest::keyClicks(g->edit, prompt);
        g->controller->waitUntilIdle();
        for (int i = 0; i < 8; ++i) {
            g->controller->step();
            g->controller->waitUntilIdle();
        }
        std::vector<int64_t> ids;
        for (const auto& t : g->controller->current()->snapshot->tgtTokens)
            ids.push_back(t.id);
        return ids;
    };
    const auto a = sampled(3), b = sampled(3);
    QCOMPARE(a.size(), promptTokens.size() + 8);
    QCOMPARE(a, b);
}

QTEST_MAIN(TestDecoding)
#include "test_decoding.moc"
