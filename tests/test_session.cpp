// Session: analyze, step, back, force, reset and finished for both architectures, and the KV-cached run
// against a full recompute of the same tokens.

#include "TestModels.h"

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
    QVERIFY_THROWS_EXCEPTION(InputError, s.analyze(std::string(40, 'a'))); // longer than max_len
    QCOMPARE(ids(s.snapshot().tgtTokens), before);
    QCOMPARE(ids(s.snapshot().srcTokens), ids(m->sourceTokens("abc")));
}

QTEST_GUILESS_MAIN(TestSession)
#include "test_session.moc"
