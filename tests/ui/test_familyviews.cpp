// A model that is not a Transformer, through core::Session and the attention page: a hand-built recurrent
// copy model (attention pooling over the source, and a decoder whose one head aligns with the source token it
// copies) gives snapshots of kinds Pooling and Cross only. The kind selector offers exactly those, the layer
// × head grid steps aside for their single head, the heatmap shows target × source and one "<pool>" row over
// the source, and the token strips mark what the shown kind has. With ATTNSCOPE_TEST_SHOTS set, the page is
// saved as familyviews-cross.png and familyviews-pooling.png there.

#include "core/base/Errors.h"
#include "core/run/Session.h"
#include "core/run/StepDecoder.h"
#include "tests/support/TestModels.h"
#include "ui/attention/AttentionPage.h"
#include "ui/attention/TokenStrip.h"
#include "ui/base/QCustomPlotInclude.h"
#include "ui/base/ViewState.h"
#include "ui/views/AttentionGrid.h"
#include "ui/views/HeatmapView.h"

#include <QComboBox>
#include <QSignalSpy>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

using core::AttentionKind;

namespace {

// Softmax of scores, in place.
void softmax(std::vector<float>& v) {
    float top = -std::numeric_limits<float>::infinity();
    for (float x : v)
        top = std::max(top, x);
    float sum = 0.0f;
    for (auto& x : v)
        sum += x = std::exp(x - top);
    for (auto& x : v)
        x /= sum;
}

// The seed's recurrent family in miniature, in plain C++: a summary of the source by attention pooling
// (a softmax over a score per source token), and a decoder that copies the source. Target position t copies
// source token t + 1 (the one after <bos>), with one head of attention over the source: a soft alignment
// centred on that token, moving one token along per step.
class CopyDecoder : public core::StepDecoder {
public:
    CopyDecoder(std::vector<int64_t> src, int64_t vocab, int64_t maxLen)
        : src_(std::move(src)), vocab_(vocab), maxLen_(maxLen) {
        const int s = static_cast<int>(src_.size());
        std::vector<float> w(std::size_t(s), 0.0f);
        for (int k = 0; k < s; ++k)
            w[std::size_t(k)] = float(src_[std::size_t(k)] % 13) / 4.0f;
        softmax(w);
        pooling_.resize(1, 1, 1, s);
        pooling_.setRow(0, 0, 0, w.data(), s);
    }

    Step push(const std::vector<int64_t>& tokens) override {
        const int n = static_cast<int>(tokens.size());
        if (n == 0 || length_ + n > maxLen_)
            throw core::InputError("the copy decoder takes 1 to max_len tokens");
        const int s = static_cast<int>(src_.size());
        Step step;
        step.crossRows.resize(1, 1, n, s);
        for (int i = 0; i < n; ++i) {
            const double centre = std::min<double>(double(length_ + i + 1), s - 1);
            std::vector<float> row(static_cast<std::size_t>(s));
            for (int k = 0; k < s; ++k)
                row[std::size_t(k)] = float(-(k - centre) * (k - centre) / 0.98);
            softmax(row);
            step.crossRows.setRow(0, 0, i, row.data(), s);
        }
        // The next token is the source token after the last one fed: mostly, with some weight on the rest.
        const auto copy = src_[std::size_t(std::min<int64_t>(length_ + n, s - 1))];
        step.logProbs.assign(std::size_t(vocab_), 0.0f);
        step.logProbs[std::size_t(copy)] = 6.0f;
        softmax(step.logProbs);
        for (auto& p : step.logProbs)
            p = std::log(p);
        length_ += n;
        return step;
    }
    void rewind(int64_t length) override { length_ = length; }
    int64_t length() const override { return length_; }
    const core::AttentionBlock& sourceAttention() const override { return pooling_; }
    AttentionKind sourceKind() const override { return AttentionKind::Pooling; }
    double encodeMs() const override { return 0.0; }

private:
    std::vector<int64_t> src_;
    int64_t vocab_;
    int64_t maxLen_;
    int64_t length_ = 0;
    core::AttentionBlock pooling_;
};

std::unique_ptr<core::StepDecoder> startCopy(std::shared_ptr<const core::Model> model,
                                             const std::vector<int64_t>& src, int64_t /*positions*/,
                                             const core::HeadAblation& /*ablation*/,
                                             const core::LayerDone& /*layerDone: no layers to count*/) {
    return std::make_unique<CopyDecoder>(src, model->config().tgtVocabSize, model->config().maxLen);
}

// What the window's worker hands the page after a request (SessionWorker::emitResult).
ui::RunResultPtr resultOf(const core::Session& session, std::shared_ptr<const core::Model> model,
                          const QString& text) {
    auto r = std::make_shared<ui::RunResult>();
    r->model = std::move(model);
    r->snapshot = std::make_shared<const core::AttentionSnapshot>(session.snapshot());
    r->sourceText = text;
    r->decodedText = QString::fromStdString(session.decodedText());
    r->step = static_cast<int>(session.decodedCount());
    r->finished = session.finished();
    return r;
}

void maybeSave(QWidget& w, const char* name) {
    const QByteArray dir = qgetenv("ATTNSCOPE_TEST_SHOTS");
    if (!dir.isEmpty())
        QVERIFY(w.grab().save(QString::fromLocal8Bit(dir) + QLatin1Char('/') + QLatin1String(name)));
}

} // namespace

class TestFamilyViews : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void sessionSnapshots();
    void attentionPage();

private:
    std::shared_ptr<const core::Model> model_;
};

void TestFamilyViews::initTestCase() {
    // Only the model's tokenizers and config are used; printable ASCII in both vocabularies.
    auto c = smallConfig(core::Architecture::EncoderDecoder, core::PositionalEncoding::Sinusoidal);
    c.srcVocabSize = c.tgtVocabSize = 99;
    model_ = randomModel(c, 5);
}

void TestFamilyViews::sessionSnapshots() {
    core::Session session(model_, startCopy);
    session.analyze("the cat");
    const int s = 9; // <bos> t h e ␣ c a t <eos>
    for (int i = 0; i < 3; ++i)
        QVERIFY(session.step() >= 0);
    QCOMPARE(QString::fromStdString(session.decodedText()), QStringLiteral("the"));
    const auto snap = session.snapshot();
    QVERIFY(snap.has(AttentionKind::Pooling));
    QVERIFY(snap.has(AttentionKind::Cross));
    QVERIFY(!snap.has(AttentionKind::Encoder));
    QVERIFY(!snap.has(AttentionKind::Decoder));
    QCOMPARE(int(snap.srcTokens.size()), s);
    QCOMPARE(snap.tgtTokens.size(), std::size_t(4)); // <bos> t h e
    const auto& cross = snap.cross;
    QCOMPARE((std::vector<int>{cross.layers, cross.heads, cross.queries, cross.keys}),
             (std::vector<int>{1, 1, 4, s}));
    QCOMPARE((std::vector<int>{snap.pooling.layers, snap.pooling.heads, snap.pooling.queries}),
             (std::vector<int>{1, 1, 1}));
    QCOMPARE(snap.pooling.keys, s);
    for (int q = 0; q < 4; ++q) {
        // Each row sums to 1 and peaks on the source token it copies.
        const float* row = cross.row(0, 0, q);
        QVERIFY(std::abs(std::accumulate(row, row + s, 0.0) - 1.0) < 1e-5);
        QCOMPARE(int(std::max_element(row, row + s) - row), q + 1);
    }
    QCOMPARE(core::queryTokens(snap, AttentionKind::Pooling).front().text, std::string("<pool>"));
    // Stepping back is a lookup: the rows of the steps left stay as they were.
    QVERIFY(session.back());
    QCOMPARE(session.snapshot().cross.queries, 3);
    QCOMPARE(session.snapshot().cross.at(0, 0, 2, 3), cross.at(0, 0, 2, 3));
}

void TestFamilyViews::attentionPage() {
    ui::ViewState state;
    ui::AttentionPage page(&state);
    page.resize(1400, 800);
    page.show();
    QVERIFY(QTest::qWaitForWindowExposed(&page));
    auto* combo = page.findChild<QComboBox*>(QStringLiteral("kindCombo"));
    auto* grid = page.findChild<ui::AttentionGrid*>(QStringLiteral("attentionGrid"));
    auto* heatmap = page.findChild<ui::HeatmapView*>(QStringLiteral("heatmapView"));
    auto* srcStrip = page.findChild<ui::TokenStrip*>(QStringLiteral("sourceStrip"));
    auto* tgtStrip = page.findChild<ui::TokenStrip*>(QStringLiteral("targetStrip"));
    QVERIFY(combo && grid && heatmap && srcStrip && tgtStrip);
    auto offered = [combo] {
        std::vector<AttentionKind> kinds;
        for (int i = 0; i < combo->count(); ++i)
            kinds.push_back(static_cast<AttentionKind>(combo->itemData(i).toInt()));
        return kinds;
    };
    QSignalSpy kindsSpy(&page, &ui::AttentionPage::kindsChanged);
    QSignalSpy hints(&page, &ui::AttentionPage::hint);

    // Before a first snapshot the selector offers the kinds the window reads from the model's config.
    const std::vector<AttentionKind> transformer{AttentionKind::Encoder, AttentionKind::Decoder,
                                                 AttentionKind::Cross};
    page.setModelKinds(transformer);
    QCOMPARE(offered(), transformer);
    page.selectKind(AttentionKind::Cross);
    QCOMPARE(state.kind(), AttentionKind::Cross);

    core::Session session(model_, startCopy);
    session.analyze("the cat");
    for (int i = 0; i < 3; ++i)
        session.step();
    page.showResult(resultOf(session, model_, QStringLiteral("the cat")));
    const int s = 9, t = 4;

    // Exactly the snapshot's kinds, the current one kept.
    const std::vector<AttentionKind> family{AttentionKind::Cross, AttentionKind::Pooling};
    QCOMPARE(offered(), family);
    QCOMPARE(page.kinds(), family);
    QCOMPARE(kindsSpy.count(), 2);
    QCOMPARE(kindsSpy.last().at(0).value<std::vector<AttentionKind>>(), family);
    QCOMPARE(state.kind(), AttentionKind::Cross);
    // One layer of one head: no grid to choose from.
    QVERIFY(grid->isHidden());
    QVERIFY(heatmap->isVisible());

    // Cross-attention: target × source, the row being fed outlined.
    auto* map = qobject_cast<QCPColorMap*>(heatmap->plot()->plottable(0));
    auto* current = qobject_cast<QCPItemRect*>(heatmap->plot()->item(1));
    QVERIFY(map && current);
    QCOMPARE(map->data()->keySize(), s);
    QCOMPARE(map->data()->valueSize(), t);
    QVERIFY(heatmap->emptyMessage().isEmpty());
    QCOMPARE(heatmap->valueAt(t - 1, t), double(session.snapshot().cross.at(0, 0, t - 1, t)));
    QVERIFY(std::isnan(heatmap->valueAt(t, 0)));
    QVERIFY(current->visible());
    QTest::mouseClick(srcStrip, Qt::LeftButton, {}, srcStrip->chipRect(2).center());
    QCOMPARE(state.markOrientation(), Qt::Vertical); // a source token is a key column
    QCOMPARE(state.markIndex(), 2);
    QTest::mouseClick(tgtStrip, Qt::LeftButton, {}, tgtStrip->chipRect(1).center());
    QCOMPARE(state.markOrientation(), Qt::Horizontal); // a target token a query row
    QCOMPARE(tgtStrip->marked(), 1);
    QCOMPARE(srcStrip->marked(), -1);
    QTest::qWait(50);
    maybeSave(page, "familyviews-cross.png");

    // Attention pooling: one "<pool>" row over the source; no token of the target is fed into it.
    combo->setCurrentIndex(1);
    QCOMPARE(state.kind(), AttentionKind::Pooling);
    QVERIFY(grid->isHidden());
    QCOMPARE(map->data()->keySize(), s);
    QCOMPARE(map->data()->valueSize(), 1);
    QVERIFY(!current->visible());
    QVERIFY2(heatmap->cellToolTip(0, 3).startsWith(QStringLiteral("query 0: \u201c<pool>\u201d\n")),
             qPrintable(heatmap->cellToolTip(0, 3)));
    QCOMPARE(heatmap->valueAt(0, 3), double(session.snapshot().pooling.at(0, 0, 0, 3)));
    QCOMPARE(state.markIndex(), -1); // the mark belonged to cross-attention's axes
    QTest::mouseClick(srcStrip, Qt::LeftButton, {}, srcStrip->chipRect(5).center());
    QCOMPARE(state.markOrientation(), Qt::Vertical);
    QCOMPARE(state.markIndex(), 5);
    QCOMPARE(srcStrip->marked(), 5);
    QTest::mouseClick(srcStrip, Qt::LeftButton, Qt::ShiftModifier, srcStrip->chipRect(4).center());
    QCOMPARE(state.markOrientation(), Qt::Vertical); // only columns: the source is never pooling's rows
    QCOMPARE(hints.count(), 0);
    QTest::mouseClick(tgtStrip, Qt::LeftButton, {}, tgtStrip->chipRect(1).center());
    QCOMPARE(hints.count(), 1);
    QCOMPARE(hints.last().at(0).toString(),
             QStringLiteral("Target tokens play no part in attention pooling"));
    QCOMPARE(state.markIndex(), 4);
    QCOMPARE(tgtStrip->marked(), -1);
    QTest::qWait(50);
    maybeSave(page, "familyviews-pooling.png");

    // A Transformer's snapshot brings its three kinds and the grid back; cross-attention is kept.
    combo->setCurrentIndex(0);
    core::Session transformerRun(model_);
    transformerRun.analyze("the cat");
    page.showResult(resultOf(transformerRun, model_, QStringLiteral("the cat")));
    QCOMPARE(offered(), transformer);
    QCOMPARE(state.kind(), AttentionKind::Cross);
    QVERIFY(!grid->isHidden());
    QCOMPARE(grid->layers(), model_->config().decoderLayers);
    QCOMPARE(map->data()->valueSize(), 1); // <bos>
}

QTEST_MAIN(TestFamilyViews)
#include "test_familyviews.moc"
