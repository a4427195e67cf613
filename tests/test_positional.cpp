// The sinusoidal table against the formula, and the rotation property PE(pos+k) = R(k·ω_i)·PE(pos).

#include "core/Positional.h"

#include <QtTest>

#include <cmath>

class TestPositional : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void matchesFormula();
    void rotationProperty();
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

QTEST_APPLESS_MAIN(TestPositional)
#include "test_positional.moc"
