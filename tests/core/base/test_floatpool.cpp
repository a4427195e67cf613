// FloatPool, PooledFloats and SharedFloats: large buffers come back for reuse, small ones and those past the
// limit do not; copies share one buffer until one of them writes; and an analysis writes its attention into
// the memory the previous snapshot gave back, with the same numbers as into fresh memory.

#include "tests/support/TestModels.h"

#include "core/base/FloatPool.h"
#include "core/base/PooledFloats.h"
#include "core/base/SharedFloats.h"
#include "core/run/Analyze.h"

#include <QtTest>

#include <atomic>
#include <set>
#include <thread>

using namespace core;

namespace {

constexpr std::size_t kMiB = std::size_t(1) << 20;

std::size_t floatsOf(std::size_t bytes) {
    return bytes / sizeof(float);
}

std::vector<int64_t> ids(int n, int salt) {
    std::vector<int64_t> out;
    for (int i = 0; i < n; ++i)
        out.push_back(4 + (i * 7 + salt) % 30);
    return out;
}

} // namespace

class TestFloatPool : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void largeBuffersComeBack();
    void smallBuffersAreNotKept();
    void smallestFitIsTaken();
    void oldestGoesPastTheLimit();
    void pooledFloatsGiveBackWhenDroppedOrReplaced();
    void threadsShareThePool();
    void sharedFloatsCopyOnWrite();
    void sharedFloatsAcrossThreads();
    void analysisReusesTheDroppedSnapshot();
};

void TestFloatPool::largeBuffersComeBack() {
    FloatPool pool;
    auto a = pool.take(floatsOf(4 * kMiB));
    QCOMPARE(a.size(), floatsOf(4 * kMiB));
    a[0] = 1.5f;
    const float* where = a.data();
    pool.give(a);
    QVERIFY(a.empty());
    QCOMPARE(pool.keptBuffers(), std::size_t(1));
    QCOMPARE(pool.keptBytes(), 4 * kMiB);
    // A smaller request is served from the same memory, with the old values left in it.
    auto b = pool.take(floatsOf(3 * kMiB));
    QCOMPARE(b.data(), where);
    QCOMPARE(b.size(), floatsOf(3 * kMiB));
    QCOMPARE(b[0], 1.5f);
    QCOMPARE(pool.keptBuffers(), std::size_t(0));
    QCOMPARE(pool.keptBytes(), std::size_t(0));
    // Grown back within its capacity, the cells past the last size are zeros.
    pool.give(b);
    auto c = pool.take(floatsOf(4 * kMiB));
    QCOMPARE(c.data(), where);
    QCOMPARE(c.back(), 0.0f);
}

void TestFloatPool::smallBuffersAreNotKept() {
    FloatPool pool;
    auto a = pool.take(floatsOf(FloatPool::kMinBytes) - 1);
    pool.give(a);
    QVERIFY(a.empty());
    QCOMPARE(pool.keptBuffers(), std::size_t(0));
    // A request larger than every kept buffer allocates.
    auto b = pool.take(floatsOf(2 * kMiB));
    pool.give(b);
    const auto c = pool.take(floatsOf(3 * kMiB));
    QCOMPARE(c.size(), floatsOf(3 * kMiB));
    QCOMPARE(pool.keptBuffers(), std::size_t(1));
}

void TestFloatPool::smallestFitIsTaken() {
    FloatPool pool;
    auto big = pool.take(floatsOf(8 * kMiB));
    auto mid = pool.take(floatsOf(4 * kMiB));
    auto small = pool.take(floatsOf(2 * kMiB));
    const float* midAt = mid.data();
    pool.give(big);
    pool.give(mid);
    pool.give(small);
    const auto got = pool.take(floatsOf(3 * kMiB));
    QCOMPARE(got.data(), midAt);
    QCOMPARE(pool.keptBytes(), 10 * kMiB);
}

void TestFloatPool::oldestGoesPastTheLimit() {
    FloatPool pool(10 * kMiB);
    auto a = pool.take(floatsOf(4 * kMiB));
    auto b = pool.take(floatsOf(4 * kMiB));
    auto c = pool.take(floatsOf(4 * kMiB));
    auto huge = pool.take(floatsOf(12 * kMiB));
    const float* bAt = b.data();
    const float* cAt = c.data();
    pool.give(a);
    pool.give(b);
    pool.give(c); // 12 MiB > 10: a goes
    QCOMPARE(pool.keptBuffers(), std::size_t(2));
    QCOMPARE(pool.keptBytes(), 8 * kMiB);
    pool.give(huge); // larger than the whole limit: freed, nothing dropped for it
    QCOMPARE(pool.keptBuffers(), std::size_t(2));
    const auto x = pool.take(floatsOf(4 * kMiB));
    const auto y = pool.take(floatsOf(4 * kMiB));
    QVERIFY((x.data() == bAt && y.data() == cAt) || (x.data() == cAt && y.data() == bAt));
    pool.clear();
    QCOMPARE(pool.keptBytes(), std::size_t(0));
}

void TestFloatPool::pooledFloatsGiveBackWhenDroppedOrReplaced() {
    auto& pool = FloatPool::shared();
    pool.clear();
    const float* first = nullptr;
    {
        PooledFloats v(floatsOf(2 * kMiB), 0.25f);
        first = v.data();
        PooledFloats copy = v; // a plain copy: its own memory, the same values
        QVERIFY(copy.data() != first);
        QCOMPARE(copy[7], 0.25f);
        QCOMPARE(pool.keptBuffers(), std::size_t(0));
    }
    QCOMPARE(pool.keptBuffers(), std::size_t(2)); // both went back when they went out of scope
    PooledFloats w;
    w = pool.take(floatsOf(2 * kMiB)); // from the pool
    QCOMPARE(pool.keptBuffers(), std::size_t(1));
    const float* wAt = w.data();
    w = std::vector<float>(16, 1.0f); // assigned over: the large memory goes back
    QCOMPARE(pool.keptBuffers(), std::size_t(2));
    const auto again = pool.take(floatsOf(2 * kMiB));
    QVERIFY(again.data() == wAt || again.data() == first);
    w = {1.0f, 2.0f};
    QCOMPARE(w.size(), std::size_t(2));
    pool.clear();
}

void TestFloatPool::threadsShareThePool() {
    FloatPool pool(64 * kMiB);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&pool, t] {
            for (int i = 0; i < 200; ++i) {
                auto v = pool.take(floatsOf(std::size_t(1 + (i + t) % 3) * kMiB));
                v.front() = static_cast<float>(i);
                pool.give(v);
            }
        });
    for (auto& th : threads)
        th.join();
    QVERIFY(pool.keptBytes() <= 64 * kMiB);
    QVERIFY(pool.keptBuffers() >= 1);
}

void TestFloatPool::sharedFloatsCopyOnWrite() {
    auto& pool = FloatPool::shared();
    pool.clear();
    SharedFloats a = std::vector<float>(floatsOf(2 * kMiB), 0.5f);
    const float* at = a.data();
    SharedFloats b = a; // shares: no copy
    QVERIFY(b.sharesWith(a));
    QCOMPARE(b.data(), at);
    QVERIFY(b == a);
    // A writer gets its own buffer first; the other copy keeps its values.
    b.mutableData()[3] = 2.0f;
    QVERIFY(!b.sharesWith(a));
    QVERIFY(b.data() != at);
    QCOMPARE(a[3], 0.5f);
    QCOMPARE(b[3], 2.0f);
    QCOMPARE(b[4], 0.5f);
    QVERIFY(a != b);
    // The only owner writes in place.
    QCOMPARE(a.mutableData(), at);
    // The last owner gives the buffer back to the pool; a mere share does not.
    {
        SharedFloats c = a;
        QCOMPARE(pool.keptBuffers(), std::size_t(0));
    }
    QCOMPARE(pool.keptBuffers(), std::size_t(0));
    a.clear();
    QVERIFY(a.empty());
    QCOMPARE(a.data(), static_cast<const float*>(nullptr));
    QCOMPARE(pool.keptBuffers(), std::size_t(1));
    // assign() takes that memory again rather than the system's.
    std::vector<float> values(floatsOf(2 * kMiB), 1.0f);
    a.assign(values.data(), values.data() + values.size());
    QCOMPARE(a.data(), at);
    QVERIFY(a == values);
    QCOMPARE(pool.keptBuffers(), std::size_t(0));
    // Empty objects read as an empty vector.
    const SharedFloats none;
    QVERIFY(none.vector().empty());
    QCOMPARE(none.size(), std::size_t(0));
    pool.clear();
}

void TestFloatPool::sharedFloatsAcrossThreads() {
    // The worker writes new blocks while the window drops old shares of them: every reader sees the
    // values of the buffer it was handed, and the writers never write into a buffer someone reads.
    SharedFloats source = std::vector<float>(floatsOf(kMiB), 0.0f);
    std::vector<std::thread> threads;
    std::atomic<int> wrong{0};
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&wrong, copy = source, t]() mutable {
            for (int i = 0; i < 100; ++i) {
                const SharedFloats before = copy;
                float* w = copy.mutableData(); // copy's own buffer: before still reads the old one
                w[0] = static_cast<float>(t * 1000 + i);
                if (before.sharesWith(copy) || copy[0] != static_cast<float>(t * 1000 + i) ||
                    (i > 0 && before[0] != static_cast<float>(t * 1000 + i - 1)))
                    ++wrong;
            }
        });
    for (auto& th : threads)
        th.join();
    QCOMPARE(wrong.load(), 0);
    QCOMPARE(source[0], 0.0f);
    FloatPool::shared().clear();
}

void TestFloatPool::analysisReusesTheDroppedSnapshot() {
    auto c = smallConfig(Architecture::EncoderDecoder, PositionalEncoding::Sinusoidal);
    c.maxLen = 256;
    const auto model = randomModel(c);
    const auto src = ids(200, 1), tgt = ids(200, 2);
    FloatPool::shared().clear();
    auto first = std::make_unique<AttentionSnapshot>(analyze(*model, src, tgt, true));
    // 2 layers × 4 heads × 200 × 200 floats a kind: over the pool's 1 MiB floor.
    QVERIFY(first->encoder.data.size() * sizeof(float) >= FloatPool::kMinBytes);
    const std::vector<float> encoder = first->encoder.data, decoder = first->decoder.data,
                             cross = first->cross.data;
    std::set<const float*> memory{first->encoder.data.data(), first->decoder.data.data(),
                                  first->cross.data.data()};
    first.reset();
    QCOMPARE(FloatPool::shared().keptBuffers(), std::size_t(3));
    const auto second = analyze(*model, src, tgt, true);
    QCOMPARE(FloatPool::shared().keptBuffers(), std::size_t(0)); // all three taken again
    QVERIFY(memory == (std::set<const float*>{second.encoder.data.data(), second.decoder.data.data(),
                                              second.cross.data.data()}));
    QVERIFY(static_cast<const std::vector<float>&>(second.encoder.data) == encoder);
    QVERIFY(static_cast<const std::vector<float>&>(second.decoder.data) == decoder);
    QVERIFY(static_cast<const std::vector<float>&>(second.cross.data) == cross);
    // The masked half of decoder self-attention is written (as zeros), not left from the last owner.
    QCOMPARE(second.decoder.at(1, 3, 10, 150), 0.0f);
}

QTEST_GUILESS_MAIN(TestFloatPool)
#include "test_floatpool.moc"
