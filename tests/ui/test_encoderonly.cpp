// An encoder-only model (the BERT family) in the window, used as a user would: typed text is framed as the
// tokenizer says ([CLS] … [SEP]), only encoder self-attention is offered, the decoding controls and the
// target strip step aside (Step's shortcut does nothing, wherever the focus is), the chart shows the
// masked-LM head's candidates for the [MASK] and the heatmap marks its row, the Heads tab (decoder heads)
// is hidden, the Inside tab opens on the [MASK] row of a post-norm layer without a next-token stage, and the
// Logit lens page reads the encoder's stream through the masked-LM head, saying what a post-norm reading is.
// The model is a small random one written to a folder with a WordPiece tokenizer made from a vocab.txt.

#include "tests/support/WindowFixture.h"

#include "core/model/Model.h"
#include "core/text/hf/HfTokenizer.h"
#include "core/text/hf/WordPieceVocab.h"
#include "ui/attention/AttentionPage.h"
#include "ui/attention/CandidatesChart.h"
#include "ui/attention/TokenStrip.h"
#include "ui/base/ViewState.h"
#include "ui/research/LensPage.h"
#include "ui/research/ResearchPages.h"

#include <QAction>
#include <QComboBox>
#include <QTabWidget>
#include <QTemporaryDir>

class TestEncoderOnly : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void attentionPage();
    void insideOpensOnTheMask();
    void lensReadsTheEncoder();

private:
    QTemporaryDir tmp_;
    QString dir_;
};

void TestEncoderOnly::initTestCase() {
    isolateSettings();
    QVERIFY(tmp_.isValid());
    std::string vocab = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\n";
    for (const char* w : {"the", "cat", "sat", "on", "mat", "a", "dog", "."})
        vocab += std::string(w) + "\n";
    for (char c = 'a'; c <= 'z'; ++c)
        vocab += std::string(1, c) + "\n##" + std::string(1, c) + "\n";
    auto tokenizer = core::HfTokenizer::fromText(core::wordPieceTokenizerJson(vocab, "", "vocab.txt"), "",
                                                 "tokenizer.json");
    core::ModelConfig c;
    c.name = "tiny-encoder-only";
    c.architecture = core::Architecture::EncoderOnly;
    c.encoderLayers = 2;
    c.decoderLayers = 0;
    c.dModel = 32;
    c.heads = 4;
    c.dFf = 64;
    c.srcVocabSize = c.tgtVocabSize = static_cast<int>(tokenizer->vocab().size());
    c.maxLen = 64;
    c.positional = core::PositionalEncoding::Learned;
    c.layerNorm = core::LayerNormKind::Standard;
    c.normEps = 1e-12;
    c.activation = core::Activation::Gelu;
    c.postNorm = c.embeddingNorm = c.maskedLmHead = true;
    c.scaleEmbeddings = false;
    c.tieOutput = c.tiedOutputBias = true;
    c.tokenizer = core::TokenizerKind::HfJson;
    c.srcVocabFile = c.tgtVocabFile = "tokenizer.json";
    const auto model = core::Model::createRandom(c, nullptr, std::move(tokenizer), 7);
    dir_ = tmp_.filePath(QStringLiteral("encoder-only"));
    model->save(dir_.toStdString());
}

void TestEncoderOnly::attentionPage() {
    auto f = openWindow(dir_, QStringLiteral("The cat [MASK] on the mat."));
    QVERIFY(f);
    auto& w = f->window;
    auto* page = w.findChild<ui::AttentionPage*>();
    QVERIFY(page);
    // Only encoder self-attention is offered.
    auto* kind = page->findChild<QComboBox*>(QStringLiteral("kindCombo"));
    QCOMPARE(kind->count(), 1);
    QVERIFY2(kind->currentText().contains(QStringLiteral("Encoder")), qPrintable(kind->currentText()));
    // [CLS] the cat [MASK] on the mat . [SEP]
    auto* source = page->findChild<ui::TokenStrip*>(QStringLiteral("sourceStrip"));
    QCOMPARE(source->count(), 9);
    // A word the vocabulary lacks shows as typed, marked unknown: not as the unknown token's "[UNK]".
    f->edit->selectAll();
    f->edit->insert(QStringLiteral("the \u20ac cat")); // QTest types Latin-1 only
    QVERIFY(f->controller->waitUntilIdle());
    QCoreApplication::processEvents();
    QCOMPARE(source->displayTexts(), (QStringList{QStringLiteral("[CLS]"), QStringLiteral("the"),
                                                  QStringLiteral("\u27E8?\u20ac\u27E9"),
                                                  QStringLiteral("cat"), QStringLiteral("[SEP]")}));
    f->edit->selectAll();
    QTest::keyClicks(f->edit, QStringLiteral("The cat [MASK] on the mat."));
    QVERIFY(f->controller->waitUntilIdle());
    QCoreApplication::processEvents();
    QCOMPARE(source->count(), 9);
    // Nothing to decode: the target strip and the decoding controls step aside; Step's shortcut, pressed with
    // the focus in the text field, leaves the run as it is.
    QVERIFY(!page->findChild<QWidget*>(QStringLiteral("targetStripScroll"))->isVisible());
    auto* step = w.findChild<QAction*>(QStringLiteral("stepAction"));
    QVERIFY(step && !step->isEnabled());
    f->edit->setFocus();
    QTest::keyClick(f->edit, Qt::Key_Right, Qt::ControlModifier);
    QVERIFY(f->controller->waitUntilIdle());
    QCOMPARE(w.findChild<ui::TokenStrip*>(QStringLiteral("targetStrip"))->count(), 0);
    // The chart shows what the masked-LM head puts at [MASK], and cannot be clicked into a decode.
    auto* chart = page->findChild<ui::CandidatesChart*>(QStringLiteral("candidatesChart"));
    QVERIFY(chart->isVisible());
    QVERIFY2(chart->axisText().contains(QStringLiteral("[MASK] (token 3)")), qPrintable(chart->axisText()));
    QCOMPARE(int(chart->candidates().size()), ui::CandidatesChart::kShown);
    QCOMPARE(chart->chosen(), int64_t(-1));
    double total = 0.0;
    for (const auto& c : chart->candidates())
        total += c.probability;
    QVERIFY(total > 0.0 && total <= 1.0 + 1e-6);
    // The decoder heads' tab is hidden.
    auto* tabs = w.findChild<QTabWidget*>();
    bool headsShown = false;
    for (int i = 0; i < tabs->count(); ++i)
        if (tabs->tabText(i).remove(QLatin1Char('&')) == QStringLiteral("Heads"))
            headsShown = tabs->isTabVisible(i);
    QVERIFY(!headsShown);
    // Without a mask there is no answer to chart.
    f->edit->selectAll();
    QTest::keyClicks(f->edit, QStringLiteral("the dog sat"));
    QVERIFY(f->controller->waitUntilIdle());
    QTRY_COMPARE(source->count(), 5);
    QVERIFY(!chart->isVisible());
}

void TestEncoderOnly::insideOpensOnTheMask() {
    auto f = openWindow(dir_, QStringLiteral("the cat [MASK]"));
    QVERIFY(f);
    auto* inside = showInsideFromSource(*f);
    QVERIFY(inside);
    QCOMPARE(inside->shownInside()->row.query.row, 3);
    QVERIFY(inside->shownInside()->row.postNorm);
    QVERIFY(!inside->shownInside()->decodes);
    QVERIFY2(inside->heading().contains(QStringLiteral("[MASK]")), qPrintable(inside->heading()));
}

void TestEncoderOnly::lensReadsTheEncoder() {
    auto f = openWindow(dir_, QStringLiteral("the cat [MASK] on the mat."));
    QVERIFY(f);
    f->edit->setFocus();
    QTest::keyClick(f->edit, Qt::Key_0, Qt::AltModifier);
    auto* lens = f->window.research()->lens();
    QVERIFY(QTest::qWaitFor(
        [&] { return lens->isVisible() && !lens->busy() && !lens->shown().points.empty(); }, 60000));
    // Through the masked-LM head, at every position of the text, and said to be a post-norm reading.
    QVERIFY(lens->shown().encoderSide);
    QVERIFY(lens->shown().postNorm);
    QCOMPARE(lens->shown().tokens.size(), std::size_t(9));
    QVERIFY2(lens->statusText().contains(QStringLiteral("encoder's")) &&
                 lens->statusText().contains(QStringLiteral("post-norm")) &&
                 lens->statusText().contains(QStringLiteral("without a final norm")),
             qPrintable(lens->statusText()));
    // Its points open encoder self-attention.
    lens->select(2, 3); // "0.mlp" at [MASK]
    QCOMPARE(QString::fromStdString(lens->shown().points[2]), QStringLiteral("0.mlp"));
    lens->openSelected();
    QCOMPARE(f->window.viewState()->kind(), core::AttentionKind::Encoder);
    QCOMPARE(f->window.viewState()->shown().layer, 0);
    QCOMPARE(f->window.viewState()->markIndex(), 3);
}

QTEST_MAIN(TestEncoderOnly)
#include "test_encoderonly.moc"
