// A KV-cached step equals a full recompute of the prefix, for 20 steps, logits and attention rows.

#include "tests/support/SkipReport.h"
#include "tests/support/TestModels.h"

#include "core/base/Runtime.h"
#include "core/run/Analyze.h"
#include "core/run/IncrementalDecoder.h"

#include <QThread>
#include <QtTest>

#include <cmath>
#include <thread>

using namespace core;

Q_DECLARE_METATYPE(core::Architecture)
Q_DECLARE_METATYPE(core::PositionalEncoding)

class TestKvCache : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void stepEqualsRecompute_data();
    void stepEqualsRecompute();
    void rewindRepeatsTheSameStep();
    void usesEveryCore();
};

void TestKvCache::stepEqualsRecompute_data() {
    QTest::addColumn<Architecture>("arch");
    QTest::addColumn<PositionalEncoding>("pos");
    for (auto arch : {Architecture::EncoderDecoder, Architecture::DecoderOnly})
        for (auto pos :
             {PositionalEncoding::Sinusoidal, PositionalEncoding::Learned, PositionalEncoding::Rope})
            QTest::newRow(qPrintable(QStringLiteral("%1/%2").arg(toString(arch), toString(pos))))
                << arch << pos;
}

void TestKvCache::stepEqualsRecompute() {
    QFETCH(Architecture, arch);
    QFETCH(PositionalEncoding, pos);
    const auto model = randomModel(smallConfig(arch, pos), 7);
    const std::vector<int64_t> src{1, 5, 6, 7, 8, 9, 2, 0};
    IncrementalDecoder dec(model, src);
    std::vector<int64_t> prefix;
    double worst = 0.0;
    for (int step = 0; step < 21; ++step) { // <bos> plus 20 decoding steps
        const int64_t token = step == 0 ? 1 : 4 + (step * 7) % 30;
        prefix.push_back(token);
        const auto inc = dec.push(token);
        const auto full = core::analyze(*model, src, prefix);
        QCOMPARE(inc.logProbs.size(), full.nextTokenLogProbs.size());
        for (std::size_t i = 0; i < inc.logProbs.size(); ++i)
            worst = std::max(worst, double(std::abs(inc.logProbs[i] - full.nextTokenLogProbs[i])));
        const int q = int(prefix.size()) - 1;
        for (int l = 0; l < full.decoder.layers; ++l)
            for (int h = 0; h < full.decoder.heads; ++h) {
                for (int k = 0; k <= q; ++k)
                    worst = std::max(
                        worst, double(std::abs(inc.selfRows.at(l, h, 0, k) - full.decoder.at(l, h, q, k))));
                for (int k = 0; k < full.cross.keys; ++k)
                    worst = std::max(
                        worst, double(std::abs(inc.crossRows.at(l, h, 0, k) - full.cross.at(l, h, q, k))));
            }
    }
    QCOMPARE(dec.length(), int64_t(21));
    qInfo("20 cached steps vs full recompute: largest difference %.3g", worst);
    QVERIFY2(worst <= 1e-5, qPrintable(QStringLiteral("largest difference %1").arg(worst)));
}

void TestKvCache::rewindRepeatsTheSameStep() {
    const auto model =
        randomModel(smallConfig(Architecture::EncoderDecoder, PositionalEncoding::Sinusoidal), 3);
    IncrementalDecoder dec(model, {1, 5, 6, 2});
    dec.push(1);
    const auto a = dec.push(9);
    dec.push(10);
    dec.push(11);
    dec.rewind(1);
    QCOMPARE(dec.length(), int64_t(1));
    const auto b = dec.push(9);
    for (std::size_t i = 0; i < a.logProbs.size(); ++i)
        QVERIFY(std::abs(a.logProbs[i] - b.logProbs[i]) <= 1e-6f);
}

void TestKvCache::usesEveryCore() {
    // LibTorch starts with one intra-op thread here; loading a model must raise it to the core count. The
    // count is the machine's online cores, as configureThreads takes them, not Qt's idealThreadCount(): that
    // counts the cores this process may run on, which a shared CI machine narrows (a job's cpuset, taskset)
    // however many it has, and the comparison then failed with nothing wrong in the program.
    const int cores = static_cast<int>(std::thread::hardware_concurrency());
    qInfo("cores: %d, of them this process may run on: %d", cores, QThread::idealThreadCount());
    if (cores < 2)
        QSKIP_MACHINE("one core, so one intra-op thread is already every core and a raise cannot be seen");
    // The earlier cases loaded models too; start again from LibTorch's own one thread.
    core::configureThreads(1);
    QCOMPARE(core::threadCount(), 1);
    randomModel(smallConfig(Architecture::DecoderOnly, PositionalEncoding::None));
    qInfo("intra-op threads after loading a model: %d", core::threadCount());
    QCOMPARE(core::threadCount(), cores);
}

ATTNSCOPE_GUILESS_MAIN(TestKvCache)
#include "test_kvcache.moc"
