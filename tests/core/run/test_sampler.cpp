// Sampler: greedy, temperature, top-k and top-p give the distribution a plain reference computes, draws
// follow it, and the same seed and step repeat the same choice.

#include "core/base/Errors.h"
#include "core/run/Sampler.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

using core::SamplingSettings;

namespace {

// Independent reference: softmax(logp / T) over all ids, sorted by probability, cut to the k most likely,
// then to the shortest prefix whose probability reaches p, renormalised.
std::map<int64_t, double> reference(const std::vector<float>& logp, double t, int k, double p) {
    std::vector<std::pair<double, int64_t>> probs;
    double z = 0.0;
    for (std::size_t i = 0; i < logp.size(); ++i)
        z += std::exp(double(logp[i]) / t);
    for (std::size_t i = 0; i < logp.size(); ++i)
        probs.emplace_back(std::exp(double(logp[i]) / t) / z, int64_t(i));
    std::stable_sort(probs.begin(), probs.end(), [](auto& a, auto& b) { return a.first > b.first; });
    if (k > 0 && std::size_t(k) < probs.size())
        probs.resize(std::size_t(k));
    const double kept =
        std::accumulate(probs.begin(), probs.end(), 0.0, [](double s, auto& x) { return s + x.first; });
    std::size_t n = 0;
    for (double mass = 0.0; n < probs.size() && mass < p * kept - 1e-12; ++n)
        mass += probs[n].first;
    probs.resize(std::max<std::size_t>(n, 1));
    double sum = 0.0;
    for (auto& x : probs)
        sum += x.first;
    std::map<int64_t, double> out;
    for (auto& x : probs)
        out[x.second] = x.first / sum;
    return out;
}

std::vector<float> logSoftmax(const std::vector<double>& scores) {
    double z = 0.0;
    for (double s : scores)
        z += std::exp(s);
    std::vector<float> out;
    for (double s : scores)
        out.push_back(float(s - std::log(z)));
    return out;
}

const std::vector<float> kLogp = logSoftmax({2.0, 0.5, 1.5, -1.0, 0.0, 1.0, -0.5, 0.25});

SamplingSettings sampled(double t, int k, double p, uint64_t seed = 0) {
    SamplingSettings s;
    s.greedy = false;
    s.temperature = t;
    s.topK = k;
    s.topP = p;
    s.seed = seed;
    return s;
}

} // namespace

class TestSampler : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void greedyTakesTheArgmax();
    void greedyCandidatesInRankOrder();
    void distributionMatchesReference_data();
    void distributionMatchesReference();
    void drawsFollowTheDistribution();
    void sameSeedSameChoice();
    void refusesBadSettings_data();
    void refusesBadSettings();
};

void TestSampler::greedyTakesTheArgmax() {
    SamplingSettings s; // greedy by default
    QCOMPARE(core::sampleToken(kLogp, s, 0), int64_t(0));
    const auto d = core::samplingDistribution(kLogp, s);
    QCOMPARE(d.size(), std::size_t(1));
    QCOMPARE(d[0].first, int64_t(0));
    QCOMPARE(d[0].second, 1.0);
    // The first of equal maxima, whatever the step or seed.
    s.seed = 99;
    QCOMPARE(core::sampleToken({-1.0f, -0.5f, -0.5f}, s, 17), int64_t(1));
}

void TestSampler::greedyCandidatesInRankOrder() {
    // The candidates shown are the most likely tokens, ties by the lower id: a whole vocabulary sorted by
    // hand (with runs of equal values) against the pipeline's first 12, 1 and 0.
    std::vector<float> logp(8000);
    for (std::size_t i = 0; i < logp.size(); ++i)
        logp[i] = -float((i * 7919) % 97) / 8.0f; // 97 distinct values, each shared by 82 or 83 ids
    std::vector<int64_t> order(logp.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int64_t a, int64_t b) { return logp[std::size_t(a)] > logp[std::size_t(b)]; });
    for (const int shown : {12, 1, 0}) {
        const auto p = core::samplingPipeline(logp, SamplingSettings{}, 0, shown);
        QCOMPARE(int(p.candidates.size()), shown);
        for (int r = 0; r < shown; ++r) {
            QCOMPARE(p.candidates[std::size_t(r)].id, order[std::size_t(r)]);
            QCOMPARE(p.candidates[std::size_t(r)].logProb, logp[std::size_t(order[std::size_t(r)])]);
        }
    }
    QCOMPARE(core::samplingPipeline(logp, SamplingSettings{}, 0, 12).chosen, order.front());
}

void TestSampler::distributionMatchesReference_data() {
    QTest::addColumn<double>("temperature");
    QTest::addColumn<int>("topK");
    QTest::addColumn<double>("topP");
    QTest::newRow("plain") << 1.0 << 0 << 1.0;
    QTest::newRow("cold") << 0.5 << 0 << 1.0;
    QTest::newRow("hot") << 2.0 << 0 << 1.0;
    QTest::newRow("top-k 3") << 1.0 << 3 << 1.0;
    QTest::newRow("top-k 1") << 1.0 << 1 << 1.0;
    QTest::newRow("top-k larger than V") << 1.0 << 50 << 1.0;
    QTest::newRow("top-p 0.5") << 1.0 << 0 << 0.5;
    QTest::newRow("top-p 0.9 hot") << 1.5 << 0 << 0.9;
    QTest::newRow("top-p tiny") << 1.0 << 0 << 1e-6;
    QTest::newRow("all three") << 0.8 << 5 << 0.7;
}

void TestSampler::distributionMatchesReference() {
    QFETCH(double, temperature);
    QFETCH(int, topK);
    QFETCH(double, topP);
    const auto got = core::samplingDistribution(kLogp, sampled(temperature, topK, topP));
    const auto want = reference(kLogp, temperature, topK, topP);
    QCOMPARE(got.size(), want.size());
    double sum = 0.0;
    for (std::size_t i = 0; i < got.size(); ++i) {
        const auto [id, p] = got[i];
        QVERIFY2(want.count(id), qPrintable(QStringLiteral("id %1 kept, the reference drops it").arg(id)));
        QVERIFY2(std::abs(p - want.at(id)) < 1e-6,
                 qPrintable(QStringLiteral("id %1: %2 vs reference %3").arg(id).arg(p).arg(want.at(id))));
        if (i > 0)
            QVERIFY(got[i - 1].second >= p); // most likely first
        sum += p;
    }
    QVERIFY(std::abs(sum - 1.0) < 1e-9);
}

void TestSampler::drawsFollowTheDistribution() {
    // 40,000 draws, each its own (seed, step) stream, against the distribution: every frequency within
    // 4.5 standard errors, and nothing drawn outside the kept set.
    const auto s = sampled(1.3, 6, 0.95);
    const auto want = reference(kLogp, 1.3, 6, 0.95);
    std::map<int64_t, int> counts;
    const int n = 40000;
    for (int i = 0; i < n; ++i) {
        auto si = s;
        si.seed = uint64_t(i / 100);
        ++counts[core::sampleToken(kLogp, si, i % 100)];
    }
    for (const auto& [id, c] : counts)
        QVERIFY2(want.count(id), qPrintable(QStringLiteral("drew id %1, outside the kept set").arg(id)));
    for (const auto& [id, p] : want) {
        const double freq = double(counts[id]) / n;
        const double se = std::sqrt(p * (1 - p) / n);
        QVERIFY2(
            std::abs(freq - p) <= 4.5 * se,
            qPrintable(QStringLiteral("id %1: drawn %2 of the time, expected %3").arg(id).arg(freq).arg(p)));
    }
}

void TestSampler::sameSeedSameChoice() {
    const auto s = sampled(1.0, 0, 1.0, 1234);
    std::vector<int64_t> first, again, otherSeed;
    auto other = s;
    other.seed = 1235;
    for (int step = 0; step < 64; ++step) {
        first.push_back(core::sampleToken(kLogp, s, step));
        again.push_back(core::sampleToken(kLogp, s, step));
        otherSeed.push_back(core::sampleToken(kLogp, other, step));
    }
    QCOMPARE(again, first);
    QVERIFY(otherSeed != first); // 64 draws of 8 ids: equal by chance with probability far below 1e-9
    // The step picks the stream: going back and redoing step 5 repeats its draw.
    QCOMPARE(core::sampleToken(kLogp, s, 5), first[5]);
}

void TestSampler::refusesBadSettings_data() {
    QTest::addColumn<double>("temperature");
    QTest::addColumn<int>("topK");
    QTest::addColumn<double>("topP");
    QTest::addColumn<QString>("fragment");
    QTest::newRow("zero temperature") << 0.0 << 0 << 1.0 << "temperature";
    QTest::newRow("NaN temperature") << std::nan("") << 0 << 1.0 << "temperature";
    QTest::newRow("negative top-k") << 1.0 << -1 << 1.0 << "top-k";
    QTest::newRow("zero top-p") << 1.0 << 0 << 0.0 << "top-p";
    QTest::newRow("top-p above 1") << 1.0 << 0 << 1.5 << "top-p";
}

void TestSampler::refusesBadSettings() {
    QFETCH(double, temperature);
    QFETCH(int, topK);
    QFETCH(double, topP);
    QFETCH(QString, fragment);
    for (int which = 0; which < 2; ++which) {
        try {
            if (which == 0)
                core::sampleToken(kLogp, sampled(temperature, topK, topP), 0);
            else
                core::samplingDistribution(kLogp, sampled(temperature, topK, topP));
            QFAIL("accepted");
        } catch (const core::InputError& e) {
            QVERIFY2(QString(e.what()).contains(fragment), e.what());
        }
    }
    QVERIFY_THROWS_EXCEPTION(core::InputError, core::sampleToken({}, SamplingSettings{}, 0));
}

QTEST_GUILESS_MAIN(TestSampler)
#include "test_sampler.moc"
