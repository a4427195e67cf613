// Session: analyze, step, back, force, reset and finished for both architectures, and the KV-cached run
// against a full recompute of the same tokens.

#include "tests/support/TestModels.h"

#include "core/base/Errors.h"
#include "core/run/Analyze.h"
#include "core/run/Session.h"

#include <QtTest>

#include <algorithm>
#include <cmath>

using namespace core;

Q_DECLARE_METATYPE(core::Architecture)

namespace {

std::vector<int64_t> ids(const std::vector<Token>& tokens) {
    std::vector<int64_t> out;
    for (const auto& t : tokens)
        out.push_back(t.id);
    return out;
}

double largestDifference(const AttentionBlock& a, const AttentionBlock& b) {
    if (a.layers != b.layers || a.heads != b.heads || a.queries != b.queries || a.keys != b.keys)
        return INFINITY;
    double worst = 0.0;
    for (int l = 0; l < a.layers; ++l)
        for (int h = 0; h < a.heads; ++h)
            for (int q = 0; q < a.queries; ++q)
                for (int k = 0; k < a.keys; ++k)
                    worst = std::max(worst, double(std::abs(a.at(l, h, q, k) - b.at(l, h, q, k))));
    return worst;
}

std::shared_ptr<const Model> model(Architecture arch, int maxLen = 64) {
    auto c = smallConfig(arch, PositionalEncoding::Sinusoidal);
    c.maxLen = maxLen;
    return randomModel(c, 11);
}

} // namespace

class TestSession : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void analyzeStartsTheRun_data();
    void analyzeStartsTheRun();
    void stepsEqualFullRecompute_data();
    void stepsEqualFullRecompute();
    void greedyStepTakesTheArgmax();
    void backIsTheEarlierState();
    void forceBranches();
    void resetReturnsToTheStart();
    void finishesAtEosAndMaxLen();
    void sameSeedSameRun();
    void refusedInputKeepsTheRun();
    void longTextIsCut_data();
    void longTextIsCut();
    void pastMaxLenIsALongerTable();
    void snapshotsShareTheSessionsAttention();
    void progressCountsTheLayers_data();
    void progressCountsTheLayers();
};

void TestSession::analyzeStartsTheRun_data() {
    QTest::addColumn<Architecture>("arch");
    QTest::newRow("encoder-decoder") << Architecture::EncoderDecoder;
    QTest::newRow("decoder-only") << Architecture::DecoderOnly;
}

void TestSession::analyzeStartsTheRun() {
    QFETCH(Architecture, arch);
    const auto m = model(arch);
    Session s(m);
    QVERIFY(s.finished()); // nothing analysed yet
    s.analyze("abc");
    QVERIFY(!s.finished());
    QCOMPARE(s.decodedCount(), int64_t(0));
    const auto snap = s.snapshot();
    const auto& v = m->targetTokenizer().vocab();
    if (arch == Architecture::EncoderDecoder) {
        QCOMPARE(ids(snap.srcTokens), ids(m->sourceTokens("abc")));
        QCOMPARE(snap.srcTokens.size(), std::size_t(5)); // <bos> a b c <eos>
        QCOMPARE(ids(snap.tgtTokens), std::vector<int64_t>{v.bos()});
        QCOMPARE(snap.encoder.queries, 5);
        QCOMPARE(snap.cross.keys, 5);
    } else {
        QVERIFY(snap.srcTokens.empty());
        QCOMPARE(ids(snap.tgtTokens), ids(m->targetTokens("abc"))); // <bos> a b c: the prompt
        QVERIFY(snap.encoder.empty());
        QVERIFY(snap.cross.empty());
    }
    QCOMPARE(snap.decoder.queries, int(snap.tgtTokens.size()));
    QCOMPARE(snap.nextTokenLogProbs.size(), std::size_t(v.size()));
}

void TestSession::stepsEqualFullRecompute_data() {
    analyzeStartsTheRun_data();
}

void TestSession::stepsEqualFullRecompute() {
    QFETCH(Architecture, arch);
    const auto m = model(arch);
    Session s(m);
    s.analyze("hello");
    double worst = 0.0;
    for (int i = 0; i < 12 && !s.finished(); ++i) {
        s.step();
        const auto snap = s.snapshot();
        const auto full = core::analyze(*m, ids(snap.srcTokens), ids(snap.tgtTokens));
        worst = std::max(worst, largestDifference(snap.decoder, full.decoder));
        worst = std::max(worst, largestDifference(snap.cross, full.cross));
        worst = std::max(worst, largestDifference(snap.encoder, full.encoder));
        QCOMPARE(snap.nextTokenLogProbs.size(), full.nextTokenLogProbs.size());
        for (std::size_t k = 0; k < full.nextTokenLogProbs.size(); ++k)
            worst = std::max(worst, double(std::abs(snap.nextTokenLogProbs[k] - full.nextTokenLogProbs[k])));
    }
    QVERIFY(s.decodedCount() > 0);
    qInfo("%lld cached steps vs full recompute: largest difference %.3g", (long long)s.decodedCount(), worst);
    QVERIFY2(worst <= 1e-5, qPrintable(QString::number(worst)));
}

void TestSession::greedyStepTakesTheArgmax() {
    Session s(model(Architecture::EncoderDecoder));
    s.analyze("abc");
    for (int i = 0; i < 5 && !s.finished(); ++i) {
        const auto logp = s.snapshot().nextTokenLogProbs;
        const auto argmax = std::max_element(logp.begin(), logp.end()) - logp.begin();
        QCOMPARE(s.step(), int64_t(argmax));
        QCOMPARE(s.snapshot().tgtTokens.back().id, int64_t(argmax));
    }
}

void TestSession::backIsTheEarlierState() {
    Session s(model(Architecture::DecoderOnly));
    s.analyze("xy");
    std::vector<AttentionSnapshot> seen{s.snapshot()};
    for (int i = 0; i < 6; ++i) {
        s.force(10 + i); // never <eos>, so the run goes on
        seen.push_back(s.snapshot());
    }
    for (int back = 5; back >= 0; --back) {
        QVERIFY(s.back());
        const auto snap = s.snapshot();
        const auto& want = seen[std::size_t(back)];
        QCOMPARE(ids(snap.tgtTokens), ids(want.tgtTokens));
        QCOMPARE(snap.nextTokenLogProbs, want.nextTokenLogProbs); // a lookup: bit for bit
        QCOMPARE(largestDifference(snap.decoder, want.decoder), 0.0);
    }
    QVERIFY(!s.back()); // at the prompt: nothing left to take back
    QCOMPARE(s.decodedCount(), int64_t(0));
}

void TestSession::forceBranches() {
    const auto m = model(Architecture::EncoderDecoder);
    Session s(m);
    QVERIFY_THROWS_EXCEPTION(InputError, s.force(5)); // nothing analysed
    s.analyze("abc");
    s.force(20);
    QCOMPARE(s.snapshot().tgtTokens.back().id, int64_t(20));
    QCOMPARE(s.decodedCount(), int64_t(1));
    const auto before = s.snapshot();
    QVERIFY_THROWS_EXCEPTION(InputError, s.force(m->config().tgtVocabSize)); // outside the vocabulary
    QCOMPARE(ids(s.snapshot().tgtTokens), ids(before.tgtTokens));            // nothing changed
    QVERIFY(s.back());
    s.force(21); // a different branch from the same point
    QCOMPARE(s.snapshot().tgtTokens.back().id, int64_t(21));
    QCOMPARE(s.snapshot().tgtTokens.size(), std::size_t(2));
    // Forced tokens are known by position, so the views and exports can mark them; a sampled step is not.
    QCOMPARE(s.snapshot().forced, std::vector<int>{1});
    s.step();
    s.force(22);
    QCOMPARE(s.snapshot().forced, (std::vector<int>{1, 3}));
    QVERIFY(s.back());
    QCOMPARE(s.snapshot().forced, std::vector<int>{1});
    s.reset();
    QVERIFY(s.snapshot().forced.empty());
    s.force(23);
    s.analyze("abc");
    QVERIFY(s.snapshot().forced.empty());
}

void TestSession::resetReturnsToTheStart() {
    Session s(model(Architecture::EncoderDecoder));
    s.analyze("abc", "x");
    const auto start = s.snapshot();
    for (int i = 0; i < 4; ++i)
        s.force(12);
    s.reset();
    QCOMPARE(s.decodedCount(), int64_t(0));
    QCOMPARE(ids(s.snapshot().tgtTokens), ids(start.tgtTokens)); // <bos> x: the given prefix stays
    QCOMPARE(s.snapshot().nextTokenLogProbs, start.nextTokenLogProbs);
    QCOMPARE(s.decodedText(), std::string());
}

void TestSession::finishesAtEosAndMaxLen() {
    const auto m = model(Architecture::EncoderDecoder, 8);
    Session s(m);
    s.analyze("ab");
    const auto eos = m->targetTokenizer().vocab().eos();
    s.force(eos);
    QVERIFY(s.finished());
    QCOMPARE(s.step(), int64_t(-1));
    QVERIFY(s.back());
    QVERIFY(!s.finished());
    while (!s.finished())
        s.force(12); // never <eos>: the run ends at max_len
    QCOMPARE(s.snapshot().tgtTokens.size(), std::size_t(8));
    QCOMPARE(s.step(), int64_t(-1));
    QVERIFY_THROWS_EXCEPTION(InputError, s.force(12)); // past max_len
}

void TestSession::sameSeedSameRun() {
    const auto m = model(Architecture::DecoderOnly);
    Session s(m);
    SamplingSettings sampling;
    sampling.greedy = false;
    sampling.temperature = 1.5;
    sampling.seed = 42;
    s.setSampling(sampling);
    auto run = [&] {
        s.analyze("ab");
        for (int i = 0; i < 10 && !s.finished(); ++i)
            s.step();
        return ids(s.snapshot().tgtTokens);
    };
    const auto first = run();
    QCOMPARE(run(), first);
    sampling.seed = 43;
    s.setSampling(sampling);
    QVERIFY(run() != first); // 10 draws from a flat 40-token distribution
}

void TestSession::refusedInputKeepsTheRun() {
    const auto m = model(Architecture::EncoderDecoder, 16);
    Session s(m);
    s.analyze("abc");
    s.force(12);
    const auto before = ids(s.snapshot().tgtTokens);
    QVERIFY_THROWS_EXCEPTION(InputError, s.analyze(""));
    QVERIFY_THROWS_EXCEPTION(InputError, s.analyze("abc", std::string(40, 'a'))); // a prefix past max_len
    QCOMPARE(ids(s.snapshot().tgtTokens), before);
    QCOMPARE(ids(s.snapshot().srcTokens), ids(m->sourceTokens("abc")));
}

void TestSession::longTextIsCut_data() {
    QTest::addColumn<Architecture>("arch");
    QTest::newRow("encoder-decoder") << Architecture::EncoderDecoder;
    QTest::newRow("decoder-only") << Architecture::DecoderOnly;
}

void TestSession::longTextIsCut() {
    QFETCH(Architecture, arch);
    const auto m = model(arch, 16);
    Session s(m);
    const std::string text(40, 'a');
    s.analyze(text); // 42 or 41 tokens with the specials: read up to 16, not refused
    const auto snap = s.snapshot();
    const bool enc = arch == Architecture::EncoderDecoder;
    const auto& side = enc ? snap.srcTokens : snap.tgtTokens;
    QCOMPARE(side.size(), std::size_t(16));
    QCOMPARE(snap.readTokens, 16);
    QCOMPARE(snap.textTokens, enc ? 42 : 41);
    QVERIFY(snap.cut());
    QCOMPARE(snap.maxLen, 16);
    // What was read is the text's beginning, token for token.
    auto all = enc ? m->sourceTokens(text) : m->targetTokens(text);
    all.resize(16);
    QCOMPARE(ids(side), ids(all));
    QVERIFY(!snap.block(enc ? AttentionKind::Encoder : AttentionKind::Decoder).empty());
    // A text that fits is not marked.
    s.analyze("abc");
    QVERIFY(!s.snapshot().cut());
    QCOMPARE(s.snapshot().textTokens, s.snapshot().readTokens);
}

void TestSession::pastMaxLenIsALongerTable() {
    // Going past max_len computes the sinusoids by formula: the same run as a model whose table is longer
    // (the seed builds 5,000 rows), with the same weights.
    for (const auto arch : {Architecture::EncoderDecoder, Architecture::DecoderOnly}) {
        const auto shortModel = model(arch, 16), longModel = model(arch, 64);
        Session past(shortModel), reference(longModel);
        past.setPastMaxLen(true);
        QVERIFY(past.pastMaxLen());
        QCOMPARE(past.positions(), int64_t(64));
        const std::string text(30, 'b');
        past.analyze(text);
        reference.analyze(text);
        for (int i = 0; i < 20; ++i) { // the target, too, goes past 16
            past.force(12);
            reference.force(12);
        }
        const auto a = past.snapshot(), b = reference.snapshot();
        QVERIFY(!a.cut());
        QCOMPARE(a.readTokens, arch == Architecture::EncoderDecoder ? 32 : 31);
        QCOMPARE(a.tgtTokens.size(), b.tgtTokens.size());
        for (const auto kind : {AttentionKind::Encoder, AttentionKind::Decoder, AttentionKind::Cross}) {
            if (!b.has(kind))
                continue;
            const double diff = largestDifference(a.block(kind), b.block(kind));
            qInfo("%s %s: largest difference %.3g", arch == Architecture::EncoderDecoder ? "enc-dec" : "dec",
                  toString(kind), diff);
            QVERIFY(diff < 1e-5);
        }
        double worst = 0.0;
        for (std::size_t v = 0; v < b.nextTokenLogProbs.size(); ++v)
            worst = std::max(worst, double(std::abs(a.nextTokenLogProbs[v] - b.nextTokenLogProbs[v])));
        QVERIFY(worst < 1e-5);
        // Without the option the same model stops at 16.
        Session capped(shortModel);
        capped.analyze(text);
        QVERIFY(capped.snapshot().cut());
    }
    // Learned positions end at max_len: the option is ignored.
    auto c = smallConfig(Architecture::DecoderOnly, PositionalEncoding::Learned);
    c.maxLen = 16;
    Session learned(randomModel(c, 3));
    learned.setPastMaxLen(true);
    QVERIFY(!learned.pastMaxLen());
    QCOMPARE(learned.positions(), int64_t(16));
}

void TestSession::snapshotsShareTheSessionsAttention() {
    // A snapshot goes to the window on every keystroke: its attention blocks are shares of the session's,
    // not copies (at 1,024 tokens the encoder's alone is 100 MB), and a later analysis does not change
    // what an earlier snapshot shows.
    const auto m = model(Architecture::EncoderDecoder);
    Session s(m);
    s.analyze("123456"); // the test models' vocabulary holds ' ' to 'C': letters would all be <unk>
    const auto first = s.snapshot();
    const auto again = s.snapshot();
    QVERIFY(!first.encoder.data.empty());
    QVERIFY(first.encoder.data.sharesWith(again.encoder.data));
    QVERIFY(first.decoder.data.sharesWith(again.decoder.data));
    QVERIFY(first.cross.data.sharesWith(again.cross.data));
    const std::vector<float> encoder = first.encoder.data;
    s.analyze("654321");
    const auto second = s.snapshot();
    QVERIFY(!second.encoder.data.sharesWith(first.encoder.data));
    QVERIFY(first.encoder.data == encoder);
    QVERIFY(largestDifference(first.encoder, second.encoder) > 0.0); // the new text's attention differs
    qInfo("encoder attention of the two texts differs by up to %g",
          largestDifference(first.encoder, second.encoder));
}

void TestSession::progressCountsTheLayers_data() {
    QTest::addColumn<Architecture>("arch");
    QTest::addColumn<int>("layers");
    QTest::newRow("encoder-decoder: 2 + 2 layers") << Architecture::EncoderDecoder << 4;
    QTest::newRow("decoder-only: 2 layers") << Architecture::DecoderOnly << 2;
}

void TestSession::progressCountsTheLayers() {
    // An analysis reports its passes: first nothing done, then each layer, up to all of them; a step reports
    // nothing; switching a head off runs the passes again and reports them again.
    QFETCH(Architecture, arch);
    QFETCH(int, layers);
    Session s(model(arch));
    std::vector<AnalysisProgress> seen;
    s.setProgress([&](const AnalysisProgress& p) { seen.push_back(p); });
    s.analyze("abcdef");
    const std::size_t tokens =
        arch == Architecture::EncoderDecoder ? s.sourceTokens().size() : s.targetTokens().size();
    QCOMPARE(int(seen.size()), layers + 1);
    for (int i = 0; i <= layers; ++i) {
        QCOMPARE(seen[std::size_t(i)].layersDone, i);
        QCOMPARE(seen[std::size_t(i)].layers, layers);
        QCOMPARE(seen[std::size_t(i)].tokens, tokens);
    }
    seen.clear();
    s.step();
    s.step();
    QVERIFY(seen.empty());
    HeadAblation off;
    off.set({AttentionKind::Decoder, 0, 1}, true);
    s.setAblation(off);
    QCOMPARE(int(seen.size()), layers + 1);
    QCOMPARE(seen.back().layersDone, layers);
    seen.clear();
    s.step(); // the run again's decoder reports no steps either
    QVERIFY(seen.empty());
}

QTEST_GUILESS_MAIN(TestSession)
#include "test_session.moc"
