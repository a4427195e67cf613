// A text longer than the model's max_len blanked the whole view, and the empty panels then said "Type a
// sentence to start". The window now analyses the first max_len tokens, marks the cut in the token strip and
// says so in a banner; for positions that extend by formula the banner offers reading past max_len, and warns
// while the run is there.

#include "tests/support/WindowFixture.h"

#include "ui/attention/AttentionPage.h"
#include "ui/attention/DecodePanel.h"
#include "ui/attention/LengthBanner.h"
#include "ui/attention/TokenStrip.h"
#include "ui/run/RunResult.h"

#include <QApplication>
#include <QLabel>
#include <QPushButton>

class TestLongText : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { isolateSettings(); }
    void cutAtMaxLenStillShows();
    void readPastMaxLenOnRequest();
    void decoderOnlyPromptIsCut();
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
}

QTEST_MAIN(TestLongText)
#include "test_longtext.moc"
