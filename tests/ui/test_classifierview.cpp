// The built-in spam classifier in the real window, used as a user would: text typed into the Source field,
// the answer shown token by token (ClassifierView) in place of the heatmap, with the decoding controls, the
// target and the next-token chart out of the way; the bars are the snapshot's weights; the padding box,
// set from the keyboard, shows the row inside a padded batch (its softmax before the mask sums to 1 and
// keeps the weights' proportions; the padding weighs 0 after it); hovering a bar names its score and its
// shares of the logits, and clicking it marks the token on the source strip. Another family's model gives
// the heatmap back. With ATTNSCOPE_TEST_SHOTS set, saves classifier-view.png and classifier-padded.png.

#include "tests/support/WindowFixture.h"

#include "core/model/Model.h"
#include "core/run/Session.h"
#include "ui/attention/AttentionPage.h"
#include "ui/attention/CandidatesChart.h"
#include "ui/attention/ClassifierView.h"
#include "ui/attention/DecodePanel.h"
#include "ui/attention/TokenStrip.h"
#include "ui/base/QCustomPlotInclude.h"
#include "ui/inside/InsideView.h"
#include "ui/run/InsideResult.h"
#include "ui/views/HeatmapView.h"

#include <QApplication>
#include <QMouseEvent>
#include <QSpinBox>
#include <QStackedWidget>
#include <QToolTip>
#include <QtTest>

#include <cmath>
#include <numeric>

namespace {

const QString kSpam = QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/spam");
const QString kText = QStringLiteral("Win a FREE vacation now! Click here to claim your prize");

void maybeSave(QWidget& w, const char* name) {
    QTest::qWait(50); // the layouts settle (posted events) before the picture
    const QByteArray dir = qgetenv("ATTNSCOPE_TEST_SHOTS");
    if (!dir.isEmpty())
        QVERIFY(w.grab().save(QString::fromLocal8Bit(dir) + QLatin1Char('/') + QLatin1String(name)));
}

} // namespace

class TestClassifierView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { isolateSettings(); }
    void answerTokenByToken();
};

void TestClassifierView::answerTokenByToken() {
    auto f = openWindow(kSpam, kText);
    QVERIFY(f);
    auto* page = f->window.findChild<ui::AttentionPage*>();
    QVERIFY(page);
    auto* view = page->findChild<ui::ClassifierView*>();
    QTRY_VERIFY(view->isVisible());
    QVERIFY(!page->findChild<ui::DecodePanel*>()->isVisible());
    QVERIFY(!page->findChild<ui::CandidatesChart*>()->isVisible());
    QVERIFY(!page->findChild<QWidget*>(QStringLiteral("targetStripScroll"))->isVisible());

    // The same text through core alone: the bars are its weights, the headline its answer.
    core::Session session(core::Model::load(kSpam.toStdString()));
    session.analyze(kText.toStdString());
    const auto snap = session.snapshot();
    const auto& d = snap.pooled;
    QVERIFY(!d.empty());
    const auto bars = view->weightBars();
    QCOMPARE(bars.size(), static_cast<qsizetype>(d.weights.size()));
    for (int j = 0; j < bars.size(); ++j)
        QCOMPARE(float(bars[j]), d.weights[j]);
    const QString answer = QString::fromStdString(d.classes[d.predicted()]);
    QCOMPARE(answer, QStringLiteral("spam")); // an advertisement, which the trained model should know
    QVERIFY2(view->headline().startsWith(QStringLiteral("<b>spam</b>")), qPrintable(view->headline()));
    QVERIFY(view->beforeMaskBars().isEmpty()); // no padding asked for
    maybeSave(f->window, "classifier-view.png");

    // The padding box from the keyboard: focus it, replace its value, as a user types.
    auto* pad = view->findChild<QSpinBox*>(QStringLiteral("padSpin"));
    pad->setFocus();
    QTest::keyClick(pad, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClicks(pad, QStringLiteral("24"));
    QCOMPARE(view->paddedWidth(), 24);
    const auto before = view->beforeMaskBars();
    const auto after = view->weightBars();
    QCOMPARE(before.size(), 24);
    QCOMPARE(after.size(), 24);
    const int s = static_cast<int>(d.weights.size());
    QVERIFY(std::abs(std::accumulate(before.begin(), before.end(), 0.0) - 1.0) < 1e-5);
    const double realShare = std::accumulate(before.begin(), before.begin() + s, 0.0);
    QVERIFY(realShare < 1.0 && realShare > 0.0); // the padding took part of the softmax
    for (int j = 0; j < 24; ++j) {
        if (j < s) // renormalised, the real tokens' weights come back exactly
            QVERIFY(std::abs(before[j] / realShare - after[j]) < 1e-5);
        else
            QCOMPARE(after[j], 0.0);
    }
    maybeSave(f->window, "classifier-padded.png");

    // The mouse: the heaviest token's bar names its score and shares; a click marks it on the strip.
    const int top = int(std::max_element(d.weights.begin(), d.weights.end()) - d.weights.begin());
    auto* plot = view->plot();
    auto* rect = plot->axisRects().front();
    const QPoint at(int(rect->axis(QCPAxis::atBottom)->coordToPixel(top)),
                    int(rect->axis(QCPAxis::atLeft)->coordToPixel(d.weights[top] / 2)));
    QCOMPARE(view->tokenAt(at), top);
    // The move goes to the plot itself: QTest::mouseMove moves the platform cursor, which the offscreen
    // platform places in screen coordinates of its own.
    QMouseEvent move(QEvent::MouseMove, QPointF(at), plot->mapToGlobal(QPointF(at)), Qt::NoButton,
                     Qt::NoButton, Qt::NoModifier);
    QApplication::sendEvent(plot, &move);
    const QString tip = view->tokenTip(top);
    QVERIFY2(tip.contains(QStringLiteral("score before softmax %1").arg(d.scores[top], 0, 'f', 4)),
             qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("share of the spam logit %1")
                              .arg(d.contributions.at(d.predicted(), top), 0, 'f', 4)),
             qPrintable(tip));
    QVERIFY(tip.contains(QStringLiteral("BiLSTM output")));
    QTRY_COMPARE(QToolTip::text(), tip);
    QTest::mouseClick(plot, Qt::LeftButton, {}, at);
    auto* srcStrip = page->findChild<ui::TokenStrip*>(QStringLiteral("sourceStrip"));
    QTRY_COMPARE(srcStrip->marked(), top);

    // The Inside tab opens the pooling row: a learned query, no input row x, the weights the view shows.
    auto* inside = showInsideFromSource(*f);
    QVERIFY(inside);
    const auto& row = inside->shownInside()->row;
    QVERIFY(row.recurrent && row.x.empty());
    for (std::size_t j = 0; j < row.weights.size(); ++j)
        QVERIFY(std::abs(row.weights[j] - d.weights[j]) < 1e-5);
    inside->hover(top, 0);
    QVERIFY2(inside->formulaLine(1).contains(QStringLiteral("learned")), qPrintable(inside->formulaLine(1)));
    QVERIFY2(inside->formulaLine(5).contains(QStringLiteral("class logits")),
             qPrintable(inside->formulaLine(5)));
    QTest::keyClick(f->edit, Qt::Key_1, Qt::AltModifier);

    // A Transformer gives the heatmap and the decoding controls back.
    QVERIFY(f->window.opener()->open(kDemoModel));
    f->edit->clear();
    QTest::keyClicks(f->edit, QStringLiteral("abc"));
    QVERIFY(f->controller->waitUntilIdle());
    QTRY_VERIFY(page->findChild<ui::HeatmapView*>()->isVisible());
    QVERIFY(!view->isVisible());
    QVERIFY(page->findChild<ui::DecodePanel*>()->isVisible());
    QVERIFY(page->findChild<ui::CandidatesChart*>()->isVisible());
}

QTEST_MAIN(TestClassifierView)
#include "test_classifierview.moc"
