// The sinusoidal table against the formula, and the rotation property PE(pos+k) = R(k·ω_i)·PE(pos).

#include "core/analysis/PositionalAnalysis.h"
#include "core/model/Positional.h"

#include <QtTest>

#include <cmath>

class TestPositional : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void matchesFormula();
    void rotationProperty();

    void frequencyMatchesFormula();
    void sinusoidalRotationError_data();
    void sinusoidalRotationError();
    void wrongSignRotationIsLarge();
    void bestAngleRecoversStep();
    void pairRadius();
    void rotationErrorOfNonRotatingTable();
    void cosineSelfSimilarityIsOne();
    void similarityIsSymmetric_data();
    void similarityIsSymmetric();
    void dotProductByHand();
    void cosineByHand();
};

namespace {
constexpr int kLen = 5000;
constexpr int kDim = 512;
double omega(int i, int d) {
    return std::exp(-(2.0 * i) * std::log(10000.0) / d);
}
} // namespace

void TestPositional::matchesFormula() {
    const auto pe = core::sinusoidalPositions(kLen, kDim);
    QCOMPARE(pe.size(), std::size_t(kLen) * kDim);
    double worst = 0.0;
    for (int pos = 0; pos < kLen; ++pos)
        for (int i = 0; i < kDim / 2; ++i) {
            const double a = pos * omega(i, kDim);
            worst = std::max(worst, std::abs(pe[size_t(pos) * kDim + 2 * size_t(i)] - std::sin(a)));
            worst = std::max(worst, std::abs(pe[size_t(pos) * kDim + 2 * size_t(i) + 1] - std::cos(a)));
        }
    qInfo("largest difference from the formula: %.3g", worst);
    QVERIFY(worst <= 1e-6);
}

void TestPositional::rotationProperty() {
    const auto pe = core::sinusoidalPositions(kLen, kDim);
    double worst = 0.0;
    for (int k : {1, 2, 7, 50, 333})
        for (int pos = 0; pos + k < kLen; pos += 37)
            for (int i = 0; i < kDim / 2; ++i) {
                const double t = k * omega(i, kDim);
                const double s = pe[size_t(pos) * kDim + 2 * size_t(i)],
                             c = pe[size_t(pos) * kDim + 2 * size_t(i) + 1];
                // (sin, cos) of (a + t) from (sin a, cos a): a rotation by t that does not depend on pos.
                const double s2 = s * std::cos(t) + c * std::sin(t);
                const double c2 = c * std::cos(t) - s * std::sin(t);
                worst = std::max(worst, std::abs(pe[size_t(pos + k) * kDim + 2 * size_t(i)] - s2));
                worst = std::max(worst, std::abs(pe[size_t(pos + k) * kDim + 2 * size_t(i) + 1] - c2));
            }
    qInfo("largest rotation error: %.3g", worst);
    QVERIFY(worst <= 1e-5);
}

void TestPositional::frequencyMatchesFormula() {
    QCOMPARE(core::sinusoidalFrequency(0, 64), 1.0);
    QVERIFY(std::abs(core::sinusoidalFrequency(16, 64) - 0.01) < 1e-12); // 10000^(−32/64)
    QVERIFY(std::abs(core::sinusoidalFrequency(3, 32) - std::pow(10000.0, -6.0 / 32.0)) < 1e-12);
}

namespace {
// A small table, so the checks run over every position the view would show.
constexpr int kSmallLen = 128;
constexpr int kSmallDim = 32;
const std::vector<float>& smallTable() {
    static const auto t = core::sinusoidalPositions(kSmallLen, kSmallDim);
    return t;
}
} // namespace

void TestPositional::sinusoidalRotationError_data() {
    QTest::addColumn<int>("pair");
    QTest::addColumn<int>("offset");
    QTest::newRow("i=0 k=1") << 0 << 1;
    QTest::newRow("i=0 k=5") << 0 << 5;
    QTest::newRow("i=1 k=3") << 1 << 3;
    QTest::newRow("i=3 k=1") << 3 << 1;
    QTest::newRow("i=7 k=20") << 7 << 20;
    QTest::newRow("i=15 k=100") << 15 << 100;
    QTest::newRow("i=8 k=127") << 8 << 127;
}

void TestPositional::sinusoidalRotationError() {
    QFETCH(int, pair);
    QFETCH(int, offset);
    const double angle = offset * core::sinusoidalFrequency(pair, kSmallDim);
    const auto r = core::rotationError(smallTable(), kSmallDim, kSmallLen, pair, offset, angle);
    QCOMPARE(r.comparisons, kSmallLen - offset);
    QVERIFY(r.worstPosition >= 0 && r.worstPosition < kSmallLen - offset);
    qInfo("pair %d offset %d: max error %.3g", pair, offset, r.maxError);
    QVERIFY2(r.maxError < 1e-5, qPrintable(QString::number(r.maxError)));
}

void TestPositional::wrongSignRotationIsLarge() {
    // R(−angle) is the textbook counter-clockwise matrix: right for (cos, sin) order, wrong for the
    // seed's (sin, cos). The error is |2 sin(kθ)| at every position, far above round-off.
    for (int pair : {0, 1, 3}) {
        const int offset = 2;
        const double angle = offset * core::sinusoidalFrequency(pair, kSmallDim);
        const auto r = core::rotationError(smallTable(), kSmallDim, kSmallLen, pair, offset, -angle);
        QVERIFY(std::abs(r.maxError - 2.0 * std::abs(std::sin(angle))) < 1e-5);
        QVERIFY(r.maxError > 0.05);
    }
}

void TestPositional::bestAngleRecoversStep() {
    for (int pair : {0, 2, 9}) {
        const int offset = 3;
        const double want = std::remainder(offset * core::sinusoidalFrequency(pair, kSmallDim), 2.0 * M_PI);
        const double got = core::bestRotationAngle(smallTable(), kSmallDim, kSmallLen, pair, offset);
        QVERIFY2(std::abs(got - want) < 1e-6, qPrintable(QStringLiteral("%1 vs %2").arg(got).arg(want)));
    }
}

void TestPositional::pairRadius() {
    for (int pair : {0, 5, 15})
        QVERIFY(std::abs(core::pairRmsRadius(smallTable(), kSmallDim, kSmallLen, pair) - 1.0) < 1e-6);
    // Rows (3, 4) and (0, 0): mean squared radius 12.5.
    const std::vector<float> t{3, 4, 0, 0};
    QVERIFY(std::abs(core::pairRmsRadius(t, 2, 2, 0) - std::sqrt(12.5)) < 1e-12);
    QCOMPARE(core::pairRmsRadius(t, 2, 1, 0), 5.0);
}

void TestPositional::rotationErrorOfNonRotatingTable() {
    // Rows alternate between (1, 0) and (0, 0): no rotation maps one onto the next, whatever the angle.
    std::vector<float> t(8 * 2, 0.0f);
    for (int pos = 0; pos < 8; pos += 2)
        t[pos * 2] = 1.0f;
    const auto r = core::rotationError(t, 2, 8, 0, 1, 0.3);
    QCOMPARE(r.comparisons, 7);
    QVERIFY(std::abs(r.maxError - 1.0) < 1e-12);
    const auto none = core::rotationError(t, 2, 8, 0, 8, 0.3);
    QCOMPARE(none.comparisons, 0);
    QCOMPARE(none.worstPosition, -1);
}

void TestPositional::cosineSelfSimilarityIsOne() {
    const auto s = core::positionSimilarity(smallTable(), kSmallDim, 64, core::SimilarityKind::Cosine);
    QCOMPARE(s.size(), std::size_t(64 * 64));
    for (int a = 0; a < 64; ++a) {
        QVERIFY(std::abs(s[std::size_t(a) * 64 + a] - 1.0) < 1e-9);
        for (int b = 0; b < 64; ++b)
            QVERIFY(s[std::size_t(a) * 64 + b] <= 1.0 + 1e-9);
    }
}

void TestPositional::similarityIsSymmetric_data() {
    QTest::addColumn<int>("kind");
    QTest::newRow("dot") << int(core::SimilarityKind::Dot);
    QTest::newRow("cosine") << int(core::SimilarityKind::Cosine);
}

void TestPositional::similarityIsSymmetric() {
    QFETCH(int, kind);
    const int n = 50;
    const auto s = core::positionSimilarity(smallTable(), kSmallDim, n, core::SimilarityKind(kind));
    QCOMPARE(s.size(), std::size_t(n * n));
    for (int a = 0; a < n; ++a)
        for (int b = 0; b < n; ++b)
            QCOMPARE(s[std::size_t(a) * n + b], s[std::size_t(b) * n + a]);
    // Not a trivially symmetric matrix: neighbours differ from far positions.
    QVERIFY(std::abs(s[1] - s[40]) > 1e-3);
}

void TestPositional::dotProductByHand() {
    // Rows (1, 2, 3), (4, 5, 6), (−1, 0, 2): PE(0)·PE(1) = 4 + 10 + 18 = 32, PE(1)·PE(2) = −4 + 0 + 12 = 8,
    // PE(0)·PE(2) = −1 + 0 + 6 = 5, squared norms 14, 77, 5.
    const std::vector<float> t{1, 2, 3, 4, 5, 6, -1, 0, 2};
    const auto s = core::positionSimilarity(t, 3, 3, core::SimilarityKind::Dot);
    const std::vector<double> want{14, 32, 5, 32, 77, 8, 5, 8, 5};
    QCOMPARE(s.size(), want.size());
    for (std::size_t j = 0; j < want.size(); ++j)
        QCOMPARE(s[j], want[j]);
    // Asking for more positions than the table has gives the table's rows only.
    QCOMPARE(core::positionSimilarity(t, 3, 10, core::SimilarityKind::Dot).size(), std::size_t(9));
    QCOMPARE(core::maxAbs(t, 3, 3), 6.0);
    QCOMPARE(core::maxAbs(t, 3, 1), 3.0);
}

void TestPositional::cosineByHand() {
    const std::vector<float> t{1, 2, 3, 4, 5, 6, 0, 0, 0};
    const auto s = core::positionSimilarity(t, 3, 3, core::SimilarityKind::Cosine);
    QVERIFY(std::abs(s[1] - 32.0 / std::sqrt(14.0 * 77.0)) < 1e-12);
    QCOMPARE(s[2], 0.0); // a zero row has no direction
    QCOMPARE(s[8], 0.0);
}

QTEST_APPLESS_MAIN(TestPositional)
#include "test_positional.moc"
