// WindowDriver brings the real window to a WindowState and reads it back: forwards (a fresh window to a
// decoded, value-weighted step with heads off on the Inside page) and backwards (to an earlier step on
// another page), each state read back by capture() equal to the one asked for, the window's own widgets
// showing it, and what the run computes equal to a session driven by hand (core::Session). A state the
// model cannot take is refused with a message naming what and the valid range.

#include "tests/support/WindowFixture.h"

#include "core/run/Session.h"
#include "ui/attention/AttentionPage.h"
#include "ui/base/ViewState.h"
#include "ui/base/WindowState.h"
#include "ui/positional/PositionalView.h"
#include "ui/research/HeadTable.h"
#include "ui/window/WindowDriver.h"

#include <QCheckBox>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QRectF>
#include <QSignalBlocker>
#include <QTabWidget>
#include <QtTest>

namespace {

const QString kModels = QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models");
const QString kText = QStringLiteral("The old man walked to the small white house.");

// The state as capture() reads it back: the model by its canonical folder, and what the window keeps.
ui::WindowState asCaptured(ui::WindowState s) {
    s.model = QFileInfo(s.model).canonicalFilePath();
    if (!s.zoom)
        s.zoom = QRectF(); // "as it is", which is the whole map here
    return s;
}

QString differences(const ui::WindowState& a, const ui::WindowState& b) {
    QStringList d;
    if (a.model != b.model)
        d << QStringLiteral("model %1 / %2").arg(a.model, b.model);
    if (a.text != b.text)
        d << QStringLiteral("text");
    if (a.step != b.step)
        d << QStringLiteral("step %1 / %2").arg(a.step).arg(b.step);
    if (a.forced != b.forced)
        d << QStringLiteral("forced (%1 / %2 tokens)").arg(a.forced.size()).arg(b.forced.size());
    if (!ui::sameZoom(a.zoom, b.zoom))
        d << QStringLiteral("zoom");
    if (a.headsOff != b.headsOff)
        d << QStringLiteral("heads off %1 / %2")
                 .arg(QString::fromStdString(a.headsOff.text()), QString::fromStdString(b.headsOff.text()));
    if (a.tab != b.tab)
        d << QStringLiteral("tab %1 / %2").arg(a.tab, b.tab);
    if (a.kind != b.kind || a.layer != b.layer || a.head != b.head)
        d << QStringLiteral("selection");
    if (a.markRow != b.markRow || a.markColumn != b.markColumn)
        d << QStringLiteral("mark");
    if (a.scale != b.scale || a.valueWeighted != b.valueWeighted || a.colorMap != b.colorMap ||
        a.lines != b.lines)
        d << QStringLiteral("display");
    if (a.insideStage != b.insideStage)
        d << QStringLiteral("inside stage %1 / %2").arg(a.insideStage).arg(b.insideStage);
    return d.join(QStringLiteral(", "));
}

} // namespace

class TestWindowDriver : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { isolateSettings(); }
    void forwardsAndBack();
    void refusesWhatTheModelLacks();
    void displayTogglesAreTheViewStates();
    void forcedTokensAndZoom();
    void aMissedSignalDoesNotStallTheDrive();
};

void TestWindowDriver::aMissedSignalDoesNotStallTheDrive() {
    // The controller's signals never reach the driver (as if one were lost): it looks at the window again
    // itself after a quiet while, steps on, and arrives, rather than waiting for good.
    auto f = openWindow(kModels + QStringLiteral("/en-es"), kText);
    QVERIFY(f);
    auto* driver = f->window.driver();
    auto target = driver->capture();
    target.step = 1;
    QStringList waited;
    connect(driver, &ui::WindowDriver::waiting, this, [&waited](const QString& what) { waited << what; });
    QElapsedTimer took;
    took.start();
    // Everything that wakes the driver: the analysis, the pages' busy flags, the head scores.
    const QSignalBlocker deaf(f->controller), deafPage(f->window.attentionPage()),
        deafHeads(f->window.findChild<ui::HeadTable*>()),
        deafPositions(f->window.findChild<ui::PositionalView*>());
    QString error;
    QVERIFY2(driver->driveAndWait(target, {}, &error, 30000), qPrintable(error));
    QCOMPARE(f->controller->current()->step, 1);
    qInfo("arrived at step 1 in %lld ms without a signal from the analysis; said: %s",
          static_cast<long long>(took.elapsed()), qPrintable(waited.join(QStringLiteral(" | "))));
    QVERIFY(took.elapsed() >= 2000); // the looks did it, not a signal (which comes within 0.1 s)
}

void TestWindowDriver::forwardsAndBack() {
    auto f = openWindow(kModels + QStringLiteral("/en-es"), QString());
    QVERIFY(f);
    auto* driver = f->window.driver();
    QVERIFY(driver);
    const QString enes = kModels + QStringLiteral("/en-es");

    // Forwards: analysed, four tokens decoded greedily, two encoder heads off after them, weight × value,
    // cross-attention of layer 1, head 2, row 3 marked, on the Inside page at stage 3, magma, log scale.
    ui::WindowState far;
    far.model = enes;
    far.text = kText;
    far.step = 4;
    far.headsOff.set({core::AttentionKind::Encoder, 0, 1}, true);
    far.headsOff.set({core::AttentionKind::Encoder, 1, 3}, true);
    far.tab = QStringLiteral("inside");
    far.kind = core::AttentionKind::Cross;
    far.layer = 1;
    far.head = 2;
    far.markRow = 3;
    far.scale = ui::ScaleMode::Log;
    far.valueWeighted = true;
    far.colorMap = QStringLiteral("magma");
    far.lines = false;
    far.insideStage = 3;
    QString error;
    QVERIFY2(driver->driveAndWait(far, {}, &error), qPrintable(error));
    auto got = driver->capture();
    QVERIFY2(differences(got, asCaptured(far)).isEmpty(), qPrintable(differences(got, asCaptured(far))));
    // The widgets show it, and the run is the one a session driven by hand computes.
    auto* tabs = f->window.findChild<QTabWidget*>(QStringLiteral("pages"));
    QCOMPARE(tabs->currentWidget(), static_cast<QWidget*>(f->window.insideView()));
    QCOMPARE(f->window.insideView()->stage(), 3);
    QVERIFY(f->window.findChild<QCheckBox*>(QStringLiteral("valueWeightedCheck"))->isChecked());
    QVERIFY(f->window.findChild<QCheckBox*>(QStringLiteral("logScaleCheck"))->isChecked());
    const auto r = f->controller->current();
    QVERIFY(r && !r->snapshot->crossWeighted.empty());
    core::Session s(core::Model::load(enes.toStdString()));
    s.analyze(kText.toStdString());
    for (int i = 0; i < 4; ++i)
        s.step();
    s.setAblation(far.headsOff);
    const auto snap = s.snapshot();
    const auto& want = snap.block(core::AttentionKind::Cross);
    const auto& shown = r->snapshot->block(core::AttentionKind::Cross);
    QCOMPARE(shown.layers, want.layers);
    QCOMPARE(shown.queries, want.queries);
    double worst = 0;
    for (int q = 0; q < want.queries; ++q)
        for (int k = 0; k < want.keys; ++k)
            worst = std::max(worst, double(std::abs(shown.at(1, 2, q, k) - want.at(1, 2, q, k))));
    QVERIFY2(worst < 1e-6, qPrintable(QString::number(worst)));
    qInfo("forwards: step %d, heads off %s, cross 1:2 within %.2g of a hand-driven session", r->step,
          far.headsOff.text().c_str(), worst);

    // Backwards: two steps back, every head on, the Attention page, the lines view, no mark.
    ui::WindowState near = far;
    near.step = 2;
    near.headsOff.clear();
    near.tab = QStringLiteral("attention");
    near.markRow = -1;
    near.valueWeighted = false;
    near.scale = ui::ScaleMode::Fixed;
    near.lines = true;
    near.insideStage = 0;
    QVERIFY2(driver->driveAndWait(near, {}, &error), qPrintable(error));
    got = driver->capture();
    QVERIFY2(differences(got, asCaptured(near)).isEmpty(), qPrintable(differences(got, asCaptured(near))));
    QCOMPARE(f->controller->current()->step, 2);
    QVERIFY(f->controller->viewState()->headsOff().empty());
    QVERIFY(f->controller->current()->ablation.empty()); // and the run shown was computed so
    QVERIFY(f->window.findChild<QCheckBox*>(QStringLiteral("linesCheck"))->isChecked());
    // And forwards again to the first state: the same as the first time.
    QVERIFY2(driver->driveAndWait(far, {}, &error), qPrintable(error));
    QVERIFY(differences(driver->capture(), asCaptured(far)).isEmpty());
}

void TestWindowDriver::refusesWhatTheModelLacks() {
    auto f = openWindow(kModels + QStringLiteral("/en-es"), kText);
    QVERIFY(f);
    auto* driver = f->window.driver();
    const auto before = driver->capture();
    ui::WindowState s = before;
    s.layer = 9;
    QString error;
    QVERIFY(!driver->driveAndWait(s, {}, &error));
    QVERIFY2(error.contains(QStringLiteral("has layers 0–2")) && error.contains(QStringLiteral("layer 9")),
             qPrintable(error));
    // A model without positional encodings of its own hides that page: a state on it is refused.
    s = before;
    s.model = kModels + QStringLiteral("/en-es-gru");
    s.kind = core::AttentionKind::Cross;
    s.layer = 0;
    s.head = 0;
    s.tab = QStringLiteral("positional");
    QVERIFY(!driver->driveAndWait(s, {}, &error));
    QVERIFY2(error.contains(QStringLiteral("has no positional page")), qPrintable(error));
    qInfo("refused: %s", qPrintable(error));
}

// The scale's keys work from the Source field and the page's boxes with the mouse, and both only set the view
// state: the boxes, the menu and capture() follow it.
void TestWindowDriver::displayTogglesAreTheViewStates() {
    auto f = openWindow(kModels + QStringLiteral("/en-es"), kText);
    QVERIFY(f);
    auto* state = f->window.viewState();
    auto* perHead = f->window.findChild<QCheckBox*>(QStringLiteral("perHeadCheck"));
    auto* log = f->window.findChild<QCheckBox*>(QStringLiteral("logScaleCheck"));
    QVERIFY(perHead && log);
    f->edit->setFocus();
    QTest::keyClick(f->edit, Qt::Key_K, Qt::ControlModifier);
    QCOMPARE(state->scaleMode(), ui::ScaleMode::PerHead);
    QVERIFY(perHead->isChecked() && !log->isChecked());
    QTest::keyClick(f->edit, Qt::Key_K, Qt::ControlModifier | Qt::ShiftModifier);
    QCOMPARE(state->scaleMode(), ui::ScaleMode::Log);
    QVERIFY(!perHead->isChecked() && log->isChecked());
    QTest::keyClick(f->edit, Qt::Key_K, Qt::ControlModifier | Qt::ShiftModifier);
    QCOMPARE(state->scaleMode(), ui::ScaleMode::Fixed);
    QVERIFY(!perHead->isChecked() && !log->isChecked());
    QTest::mouseClick(perHead, Qt::LeftButton, {}, QPoint(8, perHead->height() / 2));
    QCOMPARE(state->scaleMode(), ui::ScaleMode::PerHead);
    QCOMPARE(f->window.driver()->capture().scale, ui::ScaleMode::PerHead);
    QTest::keyClick(f->edit, Qt::Key_L, Qt::ControlModifier | Qt::ShiftModifier);
    QVERIFY(state->linesShown());
    QCOMPARE(f->window.driver()->capture().lines, std::optional<bool>(true));
}

// Tokens forced instead of the model's and the heatmap's zoom are part of the state: driven forwards to a run
// that forces the runner-up at its second token, it is core's run forced the same way; driven back to the
// greedy run, and to one forcing another token earlier, the driver backs up to the token that differs.
void TestWindowDriver::forcedTokensAndZoom() {
    const QString enes = kModels + QStringLiteral("/en-es");
    auto f = openWindow(enes, QString());
    QVERIFY(f);
    auto* driver = f->window.driver();
    // The runner-up after the first decoded token, from core alone.
    core::Session hand(core::Model::load(enes.toStdString()));
    hand.analyze(kText.toStdString());
    hand.step();
    const auto& lp = hand.snapshot().nextTokenLogProbs;
    int64_t best = 0, second = 1;
    for (int64_t id = 0; id < static_cast<int64_t>(lp.size()); ++id) {
        const float p = lp[std::size_t(id)];
        if (p > lp[std::size_t(best)]) {
            second = best;
            best = id;
        } else if (id != best && (second == best || p > lp[std::size_t(second)])) {
            second = id;
        }
    }
    QVERIFY(second != best);
    hand.force(second);
    hand.step();
    hand.step();
    const auto want = hand.snapshot();

    ui::WindowState s = driver->capture(); // the window as it is, with what follows changed
    s.text = kText;
    s.step = 4;
    s.forced = {{1, second}};
    s.kind = core::AttentionKind::Cross;
    s.layer = 1;
    s.head = 0;
    s.zoom = QRectF(2, 1, 5, 3);
    QString error;
    QVERIFY2(driver->driveAndWait(s, {}, &error), qPrintable(error));
    auto got = driver->capture();
    QVERIFY2(differences(got, asCaptured(s)).isEmpty(), qPrintable(differences(got, asCaptured(s))));
    const auto r = f->controller->current();
    QCOMPARE(r->snapshot->tgtTokens.size(), want.tgtTokens.size());
    for (std::size_t i = 0; i < want.tgtTokens.size(); ++i)
        QCOMPARE(r->snapshot->tgtTokens[i].id, want.tgtTokens[i].id);
    QCOMPARE(r->snapshot->cross.at(1, 0, 3, 2), want.cross.at(1, 0, 3, 2));
    QCOMPARE(f->window.attentionPage()->zoom(), QRectF(2, 1, 5, 3));
    qInfo("forced id %lld as token 1: \"%s\"", static_cast<long long>(second), qPrintable(r->decodedText));

    // Back to the greedy run two tokens in, the whole map: the forced token is undone.
    ui::WindowState greedy = s;
    greedy.step = 2;
    greedy.forced.clear();
    greedy.zoom = QRectF();
    QVERIFY2(driver->driveAndWait(greedy, {}, &error), qPrintable(error));
    got = driver->capture();
    QVERIFY2(differences(got, asCaptured(greedy)).isEmpty(),
             qPrintable(differences(got, asCaptured(greedy))));
    QVERIFY(f->controller->current()->snapshot->forced.empty());
    QVERIFY(f->controller->current()->snapshot->tgtTokens[2].id != second);
    // Another token forced first, from two tokens in: back to it and on.
    ui::WindowState early = greedy;
    early.forced = {{0, second}};
    QVERIFY2(driver->driveAndWait(early, {}, &error), qPrintable(error));
    got = driver->capture();
    QVERIFY2(differences(got, asCaptured(early)).isEmpty(), qPrintable(differences(got, asCaptured(early))));
    QCOMPARE(f->controller->current()->snapshot->tgtTokens[1].id, second);
}

QTEST_MAIN(TestWindowDriver)
#include "test_windowdriver.moc"
