// A text longer than the model's max_len blanked the whole view, and the empty panels then said "Type a
// sentence to start". The window now analyses the first max_len tokens, marks the cut in the token strip and
// says so in a banner; for positions that extend by formula the banner offers reading past max_len, and warns
// while the run is there.

#include "tests/support/TestModels.h"
#include "tests/support/WindowFixture.h"

#include "ui/attention/AttentionPage.h"
#include "ui/attention/DecodePanel.h"
#include "ui/attention/LengthBanner.h"
#include "ui/attention/TokenStrip.h"
#include "ui/inside/InsideView.h"
#include "ui/run/RunResult.h"
#include "ui/views/AttentionGrid.h"
#include "ui/views/HeatmapView.h"

#include <QApplication>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTemporaryDir>

class TestLongText : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { isolateSettings(); }
    void cutAtMaxLenStillShows();
    void readPastMaxLenOnRequest();
    void decoderOnlyPromptIsCut();
    void analysingALongTextSaysSo();
};

namespace {

const QString kReverse = QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/reverse");
const QString kTinyLm = QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/tiny-lm");

ui::LengthBanner* bannerOf(WindowFixture& f) {
    return f.window.findChild<ui::LengthBanner*>(QStringLiteral("lengthBanner"));
}

ui::TokenStrip* strip(WindowFixture& f, const char* name) {
    return f.window.findChild<ui::TokenStrip*>(QString::fromLatin1(name));
}

} // namespace

void TestLongText::cutAtMaxLenStillShows() {
    auto f = openWindow(kReverse, QString(40, QLatin1Char('a'))); // 42 tokens with <bos>, <eos>; max_len 32
    QVERIFY(f);
    QCoreApplication::processEvents();
    const auto r = f->controller->current();
    QVERIFY2(r, "a long text must be analysed, not refused");
    QVERIFY(f->window.lastError().isEmpty());
    QCOMPARE(int(r->snapshot->srcTokens.size()), 32);
    QCOMPARE(r->snapshot->encoder.keys, 32);
    auto* src = strip(*f, "sourceStrip");
    QCOMPARE(src->count(), 32);
    QCOMPARE(src->notRead(), 10);
    QVERIFY(!src->cutRect().isEmpty());
    QVERIFY(src->cutRect().left() > src->chipRect(31).left() ||
            src->cutRect().top() > src->chipRect(31).top());
    auto* banner = bannerOf(*f);
    QVERIFY(banner->isVisible());
    QVERIFY2(banner->text().contains(QStringLiteral("42 tokens")) &&
                 banner->text().contains(QStringLiteral("32")),
             qPrintable(banner->text()));
    QVERIFY(banner->button()->isVisible()); // sinusoidal: going past is offered
    auto* status = f->window.findChild<QLabel*>(QStringLiteral("decodeStatus"));
    QVERIFY(status);
    QVERIFY2(!status->text().contains(QStringLiteral("Type a sentence")), qPrintable(status->text()));
    // Decoding goes on from the part read.
    f->controller->step();
    QVERIFY(f->controller->waitUntilIdle());
    QCOMPARE(f->controller->current()->step, 1);
}

void TestLongText::readPastMaxLenOnRequest() {
    auto f = openWindow(kReverse, QString(40, QLatin1Char('a')));
    QVERIFY(f);
    auto* banner = bannerOf(*f);
    f->window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&f->window));
    f->edit->setFocus();
    QTest::mouseClick(banner->button(), Qt::LeftButton);
    QVERIFY(f->controller->waitUntilIdle());
    QCoreApplication::processEvents();
    auto r = f->controller->current();
    QVERIFY(r && r->pastMaxLen);
    // The click left the focus where the text was typed: Enter decodes to the end at once.
    QCOMPARE(QApplication::focusWidget(), static_cast<QWidget*>(f->edit));
    QCOMPARE(int(r->snapshot->srcTokens.size()), 42);
    QCOMPARE(r->snapshot->encoder.keys, 42);
    auto* src = strip(*f, "sourceStrip");
    QCOMPARE(src->count(), 42);
    QCOMPARE(src->notRead(), 0);
    QVERIFY(banner->isVisible()); // the warning stays while the run is past max_len
    QVERIFY2(banner->text().contains(QStringLiteral("never seen in training")) &&
                 banner->text().contains(QStringLiteral("32–41")),
             qPrintable(banner->text()));
    QCOMPARE(banner->button()->text(), QStringLiteral("Stop at max_len"));
    // Back to the limit, by the same button.
    QTest::mouseClick(banner->button(), Qt::LeftButton);
    QVERIFY(f->controller->waitUntilIdle());
    QCoreApplication::processEvents();
    r = f->controller->current();
    QVERIFY(r && !r->pastMaxLen);
    QCOMPARE(int(r->snapshot->srcTokens.size()), 32);
    QVERIFY(banner->text().contains(QStringLiteral("42 tokens")));
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Return);
    QVERIFY(f->controller->waitUntilIdle(60000));
    QVERIFY2(f->controller->current()->finished && f->controller->current()->step > 0,
             "Enter after the banner's button did not decode to the end");
}

void TestLongText::decoderOnlyPromptIsCut() {
    // A prompt longer than tiny-lm's 128 positions: the first 128 tokens are read into the target strip.
    auto f = openWindow(kTinyLm, QString());
    QVERIFY(f);
    f->edit->selectAll();
    f->edit->insert(QString(200, QLatin1Char('a')) + QStringLiteral(" the end"));
    QVERIFY(f->controller->waitUntilIdle());
    QCoreApplication::processEvents();
    const auto r = f->controller->current();
    QVERIFY(r);
    QCOMPARE(int(r->snapshot->tgtTokens.size()), 128);
    QVERIFY(r->snapshot->cut());
    QVERIFY(strip(*f, "targetStrip")->notRead() > 0);
    QVERIFY(bannerOf(*f)->isVisible());
    // No source row on a decoder-only model; the target strip, scrolled to its newest token, still says
    // "target" beside the lines in sight.
    QVERIFY(!strip(*f, "sourceStrip")->isVisible());
    QString words;
    for (int i = 0; i < 30; ++i)
        words += QStringLiteral("the cat sat on the mat. ");
    f->edit->selectAll();
    f->edit->insert(words); // 128 tokens of words: more lines than the strip shows
    QVERIFY(f->controller->waitUntilIdle());
    QCoreApplication::processEvents();
    auto* target = strip(*f, "targetStrip");
    const QRect seen = target->visibleRegion().boundingRect();
    qInfo("target strip %d px tall, %d..%d in sight; its name at %d..%d", target->height(), seen.top(),
          seen.bottom(), target->titleRect().top(), target->titleRect().bottom());
    QVERIFY2(seen.top() > 0, "the strip was expected scrolled to its newest tokens");
    QVERIFY(seen.contains(target->titleRect()));
}

void TestLongText::analysingALongTextSaysSo() {
    // A first text of 600 tokens on 12 layers: until its result, the page says how far the passes are (not
    // "Type a sentence to start") and nothing can be decoded; then the controls come back.
    auto c = smallConfig(core::Architecture::DecoderOnly, core::PositionalEncoding::Sinusoidal);
    c.decoderLayers = 12;
    c.dModel = 256;
    c.dFf = 512;
    c.maxLen = 1024;
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("deep"));
    const auto model = randomModel(c, 5);
    model->save(path.toStdString());
    auto f = openWindow(path, QString());
    QVERIFY(f);
    f->controller->setGlanceMs(0); // said however quick the machine: what is said is under test, not when
    QSignalSpy said(f->controller, &ui::AnalysisController::analysing);
    QString text;
    for (int i = 0; i < 60; ++i)
        text += QStringLiteral("0123456789");
    const auto tokens = model->targetTokens(text.toStdString()).size();
    auto* status = f->window.findChild<QLabel*>(QStringLiteral("decodeStatus"));
    auto* grid = f->window.findChild<ui::AttentionGrid*>(QStringLiteral("attentionGrid"));
    auto* inside = f->window.findChild<ui::InsideView*>();
    auto* stepAction = f->window.findChild<QAction*>(QStringLiteral("stepAction"));
    QVERIFY(status && grid && inside && stepAction);
    QString statusWhile, gridWhile, heatWhile, insideWhile;
    bool stepWhile = true;
    int doneWhile = 0;
    // Read at the first layer done that is said, as a user sees the window then.
    connect(f->controller, &ui::AnalysisController::analysing, this, [&](qulonglong, int done, int) {
        if (done >= 1 && statusWhile.isEmpty()) {
            doneWhile = done;
            statusWhile = status->text();
            gridWhile = grid->emptyMessage();
            heatWhile = f->window.findChild<ui::HeatmapView*>()->emptyMessage();
            insideWhile = inside->findChild<QLabel*>(QStringLiteral("insideHeading"))->text();
            stepWhile = stepAction->isEnabled();
            const QByteArray shots = qgetenv("ATTNSCOPE_TEST_SHOTS");
            if (!shots.isEmpty()) {
                f->window.statusBar()->clearMessage(); // "Loaded …" names the test's temporary folder
                f->window.grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/analysing.png"));
            }
        }
    });
    f->edit->setFocus();
    f->edit->insert(text);
    QVERIFY(f->controller->waitUntilIdle(60000));
    QCoreApplication::processEvents();
    QVERIFY(f->controller->current());
    qInfo("%lld progress reports; at the first layer: \"%s\"", static_cast<long long>(said.count()),
          qPrintable(statusWhile));
    const QString want = QStringLiteral("Analysing %1 tokens\u2026 (layer %2 of 12)")
                             .arg(QLocale(QLocale::English).toString(qulonglong(tokens)))
                             .arg(doneWhile);
    QCOMPARE(statusWhile, want);
    QCOMPARE(gridWhile, want);
    QCOMPARE(heatWhile, want);
    QCOMPARE(insideWhile, want);
    QVERIFY2(!stepWhile, "Step must wait for the analysis");
    // The layers reported in order, up to the last.
    QVERIFY(said.count() >= 2);
    int last = -1;
    for (const auto& args : said) {
        QCOMPARE(args.at(0).toULongLong(), qulonglong(tokens));
        QCOMPARE(args.at(2).toInt(), 12);
        QVERIFY(args.at(1).toInt() > last);
        last = args.at(1).toInt();
    }
    QCOMPARE(last, 12);
    // The result: the controls and the step line are back, and nothing says it is analysing.
    QVERIFY(stepAction->isEnabled());
    QVERIFY2(status->text().startsWith(QStringLiteral("step 0")), qPrintable(status->text()));
    QVERIFY(!f->controller->analysingNow());
    QVERIFY(!inside->findChild<QLabel*>(QStringLiteral("insideHeading"))
                 ->text()
                 .startsWith(QStringLiteral("Analysing")));
}

QTEST_MAIN(TestLongText)
#include "test_longtext.moc"
