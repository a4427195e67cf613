// The Side by side page in the real window, as a user reaches it: a sentence typed into the Source field,
// Alt+6 pressed there, and the built-in GRU translator (left) and Transformer (right) each show their
// greedy translation and the attention each output was produced with, equal to core::alignmentOf on the
// same models; the right side's head chosen from the keyboard redraws it; typing another sentence while the
// page is shown follows it. With ATTNSCOPE_TEST_SHOTS set, saves side-by-side.png. A Hugging Face Marian
// folder the window opens is offered on both sides, and translates there.

#include "tests/support/ReferencePython.h"
#include "tests/support/SkipReport.h"
#include "tests/support/WindowFixture.h"

#include "core/analysis/Alignment.h"
#include "ui/research/AlignmentPage.h"

#include <QComboBox>
#include <QFileInfo>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

namespace {

const QString kModels = QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models");
const QString kText = QStringLiteral("The old man walked to the small white house.");

double largestDifference(const core::Alignment& a, const core::Alignment& b) {
    if (a.weights.rows != b.weights.rows || a.weights.cols != b.weights.cols)
        return 1e9;
    double worst = 0.0;
    for (std::size_t i = 0; i < a.weights.data.size(); ++i)
        worst = std::max(worst, double(std::abs(a.weights.data[i] - b.weights.data[i])));
    return worst;
}

bool waitIdle(ui::AlignmentPage* page) {
    QTest::qWait(20);
    return QTest::qWaitFor([page] { return !page->busy(); }, 60000);
}

} // namespace

class TestAlignmentPage : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { isolateSettings(); }
    void twoModelsOneSentence();
    void huggingFaceMarianOffered();
};

void TestAlignmentPage::twoModelsOneSentence() {
    auto f = openWindow(kModels + QStringLiteral("/en-es"), kText);
    QVERIFY(f);
    auto* page = f->window.findChild<ui::AlignmentPage*>();
    auto* tabs = f->window.findChild<QTabWidget*>(QStringLiteral("pages"));
    QVERIFY(page && tabs);
    QVERIFY(!page->isVisible());
    QVERIFY(page->shown(0).model.empty()); // nothing computed while the page was not shown
    f->edit->setFocus();
    QTest::keyClick(f->edit, Qt::Key_6, Qt::AltModifier);
    QTRY_COMPARE(tabs->currentWidget(), page);
    QVERIFY(waitIdle(page));
    QCOMPARE(page->shown(0).model, std::string("en-es-gru"));
    QCOMPARE(page->shown(1).model, std::string("en-es"));

    const auto gru = core::Model::load((kModels + QStringLiteral("/en-es-gru")).toStdString());
    const auto transformer = core::Model::load((kModels + QStringLiteral("/en-es")).toStdString());
    const auto expectLeft = core::alignmentOf(gru, kText.toStdString());
    const auto expectRight = core::alignmentOf(transformer, kText.toStdString(), -1, -1);
    QCOMPARE(page->shown(0).translation, expectLeft.translation);
    QCOMPARE(page->shown(1).translation, expectRight.translation);
    QCOMPARE(largestDifference(page->shown(0), expectLeft), 0.0);
    QCOMPARE(largestDifference(page->shown(1), expectRight), 0.0);
    QCOMPARE(page->shown(1).layer, -1); // the mean until a user picks
    const double agree = core::argmaxAgreement(expectLeft, expectRight);
    QVERIFY2(page->agreementText().contains(QStringLiteral("%1%").arg(std::lround(100 * agree))),
             qPrintable(page->agreementText()));
    qInfo("GRU: %s | Transformer: %s | agreement %.2f", expectLeft.translation.c_str(),
          expectRight.translation.c_str(), agree);

    // The right side's layer, then head, from the keyboard: Down on a closed combo box picks the next.
    auto combos = page->findChildren<QComboBox*>();
    QComboBox *layer = nullptr, *head = nullptr;
    for (auto* c : combos)
        if (c->isVisible() && c->itemText(0) == QStringLiteral("mean of layers"))
            layer = c;
        else if (c->isVisible() && c->itemText(0) == QStringLiteral("mean of heads"))
            head = c;
    QVERIFY(layer && head);
    layer->setFocus();
    QTest::keyClick(layer, Qt::Key_Down);
    QTest::keyClick(layer, Qt::Key_Down); // layer 1
    head->setFocus();
    QTest::keyClick(head, Qt::Key_Down); // head 0
    QVERIFY(waitIdle(page));
    QCOMPARE(page->shown(1).layer, 1);
    QCOMPARE(page->shown(1).head, 0);
    QCOMPARE(largestDifference(page->shown(1), core::alignmentOf(transformer, kText.toStdString(), 1, 0)),
             0.0);
    const QByteArray dir = qgetenv("ATTNSCOPE_TEST_SHOTS");
    if (!dir.isEmpty())
        QVERIFY(f->window.grab().save(QString::fromLocal8Bit(dir) + QStringLiteral("/side-by-side.png")));

    // Typing on, the page follows the Source field.
    f->edit->setFocus();
    f->edit->selectAll();
    QTest::keyClicks(f->edit, QStringLiteral("The red car."));
    QVERIFY(f->controller->waitUntilIdle());
    QVERIFY(waitIdle(page));
    QCOMPARE(page->shown(0).translation, core::alignmentOf(gru, "The red car.").translation);
}

// The page reads a folder's config.json through the one reader every format has
// (ModelDirectory::readConfig): a Marian folder, whose config.json is Hugging Face's, is a translation model.
void TestAlignmentPage::huggingFaceMarianOffered() {
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const QString dir = tmp.filePath(QStringLiteral("opus-mt-tiny"));
    QString why;
    if (!runReferenceScript({QStringLiteral("marian_reference.py"), dir}, &why)) {
        if (why.startsWith(QStringLiteral("skipped")))
            QSKIP_MISSING(qPrintable(why));
        QFAIL(qPrintable(why));
    }
    auto f = openWindow(dir, QStringLiteral("The old man walked home."));
    QVERIFY(f);
    auto* page = f->window.findChild<ui::AlignmentPage*>();
    auto* tabs = f->window.findChild<QTabWidget*>(QStringLiteral("pages"));
    QVERIFY(page && tabs);
    const QString path = QFileInfo(dir).canonicalFilePath();
    int offered = 0;
    for (auto* c : page->findChildren<QComboBox*>())
        offered += c->findData(path) >= 0;
    QCOMPARE(offered, 2); // the window's own model, on the left and on the right
    f->edit->setFocus();
    QTest::keyClick(f->edit, Qt::Key_6, Qt::AltModifier);
    QTRY_COMPARE(tabs->currentWidget(), page);
    QVERIFY(page->chooseModel(1, dir));
    QVERIFY(waitIdle(page));
    const auto marian = core::Model::load(dir.toStdString());
    const auto expect = core::alignmentOf(marian, "The old man walked home.", -1, -1);
    QCOMPARE(page->shown(1).model, expect.model);
    QCOMPARE(page->shown(1).translation, expect.translation);
    QCOMPARE(largestDifference(page->shown(1), expect), 0.0);
    qInfo("Marian folder (%s) offered on %d sides; its translation: %s", expect.model.c_str(), offered,
          expect.translation.c_str());
}

ATTNSCOPE_WIDGETS_MAIN(TestAlignmentPage)
#include "test_alignmentpage.moc"
