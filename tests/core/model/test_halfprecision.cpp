// Half precision: float32 to F16 rounds to nearest even (checked against every one of the 65,536 halves),
// values beyond F16's range are refused naming the tensor, and a model saved with F16 weights loads and
// computes within half's precision of the F32 one.

#include "tests/support/TestModels.h"

#include "core/base/Errors.h"
#include "core/base/Float16.h"
#include "core/model/Safetensors.h"
#include "core/run/Analyze.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>

using namespace core;

class TestHalfPrecision : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void halfExact_data();
    void halfExact();
    void halfRounding_data();
    void halfRounding();
    void halfEveryValue();
    void halvesInBulk();
    void writeHalf();
    void halfOverflow_data();
    void halfOverflow();
    void modelInHalf();
    void modelBeyondHalf();
};

namespace {

float bitsToFloat(quint32 u) {
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

// Bits, so that -0, NaN and neighbouring floats compare exactly.
quint32 floatBits(float f) {
    quint32 u;
    std::memcpy(&u, &f, 4);
    return u;
}

std::vector<float> fileTensor(const std::string& dir, const std::string& name, DType* dtype = nullptr) {
    const auto f = SafetensorsFile::open(dir + "/model.safetensors");
    const auto* t = f.find(name);
    if (!t)
        return {};
    if (dtype)
        *dtype = t->dtype;
    return f.toFloat32(*t);
}

} // namespace

void TestHalfPrecision::halfExact_data() {
    QTest::addColumn<float>("value");
    QTest::addColumn<quint16>("bits");
    QTest::newRow("0") << 0.0f << quint16(0x0000);
    QTest::newRow("-0") << -0.0f << quint16(0x8000);
    QTest::newRow("1") << 1.0f << quint16(0x3C00);
    QTest::newRow("-2.5") << -2.5f << quint16(0xC100);
    QTest::newRow("1+2^-10") << 1.0009765625f << quint16(0x3C01);
    QTest::newRow("0.1 as half") << 0.0999755859375f << quint16(0x2E66);
    QTest::newRow("largest") << 65504.0f << quint16(0x7BFF);
    QTest::newRow("-largest") << -65504.0f << quint16(0xFBFF);
    QTest::newRow("smallest normal") << std::ldexp(1.0f, -14) << quint16(0x0400);
    QTest::newRow("largest subnormal") << std::ldexp(1023.0f, -24) << quint16(0x03FF);
    QTest::newRow("smallest subnormal") << std::ldexp(1.0f, -24) << quint16(0x0001);
    QTest::newRow("-subnormal") << -std::ldexp(5.0f, -24) << quint16(0x8005);
    QTest::newRow("inf") << std::numeric_limits<float>::infinity() << quint16(0x7C00);
    QTest::newRow("-inf") << -std::numeric_limits<float>::infinity() << quint16(0xFC00);
}

void TestHalfPrecision::halfExact() {
    QFETCH(float, value);
    QFETCH(quint16, bits);
    QCOMPARE(floatToHalf(value), bits);
    QCOMPARE(floatBits(halfToFloat(bits)), floatBits(value));
}

void TestHalfPrecision::halfRounding_data() {
    QTest::addColumn<float>("value");
    QTest::addColumn<quint16>("bits");
    const float ulp1 = std::ldexp(1.0f, -10); // half spacing in [1, 2)
    QTest::newRow("tie to even, down") << 1.0f + ulp1 / 2 << quint16(0x3C00);
    QTest::newRow("tie to even, up") << 1.0f + 3 * ulp1 / 2 << quint16(0x3C02);
    QTest::newRow("above tie") << std::nextafter(1.0f + ulp1 / 2, 2.0f) << quint16(0x3C01);
    QTest::newRow("below tie") << std::nextafter(1.0f + 3 * ulp1 / 2, 0.0f) << quint16(0x3C01);
    QTest::newRow("2049 ties to 2048") << 2049.0f << quint16(0x6800);
    QTest::newRow("2051 ties to 2052") << 2051.0f << quint16(0x6802);
    QTest::newRow("-2051") << -2051.0f << quint16(0xE802);
    QTest::newRow("carry into exponent") << std::nextafter(2.0f, 0.0f) << quint16(0x4000);
    QTest::newRow("2^-25 ties to 0") << std::ldexp(1.0f, -25) << quint16(0x0000);
    QTest::newRow("above 2^-25") << std::nextafter(std::ldexp(1.0f, -25), 1.0f) << quint16(0x0001);
    QTest::newRow("subnormal tie up") << std::ldexp(3.0f, -25) << quint16(0x0002);
    QTest::newRow("subnormal tie down") << std::ldexp(5.0f, -25) << quint16(0x0002);
    QTest::newRow("up to smallest normal")
        << std::ldexp(1.0f, -14) - std::ldexp(1.0f, -26) << quint16(0x0400);
    QTest::newRow("underflow") << 1e-10f << quint16(0x0000);
    QTest::newRow("-underflow") << -1e-10f << quint16(0x8000);
    QTest::newRow("float subnormal") << std::numeric_limits<float>::denorm_min() << quint16(0x0000);
    QTest::newRow("65519 to largest") << 65519.0f << quint16(0x7BFF);
    QTest::newRow("65520 ties to inf") << 65520.0f << quint16(0x7C00);
    QTest::newRow("overflow") << 1e6f << quint16(0x7C00);
    QTest::newRow("-overflow") << -1e30f << quint16(0xFC00);
    QTest::newRow("NaN") << std::numeric_limits<float>::quiet_NaN() << quint16(0x7E00);
    QTest::newRow("-NaN") << -std::numeric_limits<float>::quiet_NaN() << quint16(0xFE00);
    QTest::newRow("signalling NaN stays NaN") << bitsToFloat(0x7F800001u) << quint16(0x7E00);
}

void TestHalfPrecision::halfRounding() {
    QFETCH(float, value);
    QFETCH(quint16, bits);
    QCOMPARE(floatToHalf(value), bits);
}

void TestHalfPrecision::halfEveryValue() {
    // Every finite half comes back exactly; halfway to its neighbour goes to whichever of the two is even,
    // and a float either side of halfway goes to the nearer one.
    for (quint32 h = 0; h < 0x10000; ++h) {
        const auto bits = static_cast<quint16>(h);
        if ((bits & 0x7C00) == 0x7C00)
            continue; // inf and NaN: covered above
        const float v = halfToFloat(bits);
        QCOMPARE(floatToHalf(v), bits);
        const auto next = static_cast<quint16>(bits + 1); // the next half away from zero
        if ((bits & 0x7FFF) == 0x7BFF)
            continue;
        const float mid = (v + halfToFloat(next)) / 2; // exact: one more significand bit than a half
        const quint16 even = (bits & 1) ? next : bits;
        if (floatToHalf(mid) != even || floatToHalf(std::nextafter(mid, 0.0f)) != bits ||
            floatToHalf(std::nextafter(mid, 2 * mid)) != next)
            QFAIL(qPrintable(QStringLiteral("rounding between half 0x%1 and its neighbour").arg(h, 4, 16)));
    }
}

void TestHalfPrecision::halvesInBulk() {
    // The bulk conversion (F16C where the CPU has it) gives floatToHalf's bits for floats of every exponent,
    // sign and rounding case: every 4,099th bit pattern (about a million), NaNs included, and lengths that
    // leave a tail after the groups of eight.
    std::vector<float> values;
    for (std::uint64_t bits = 0; bits <= 0xFFFFFFFFull; bits += 4099) {
        float f;
        const auto b = static_cast<std::uint32_t>(bits);
        std::memcpy(&f, &b, sizeof f);
        values.push_back(f);
    }
    for (const std::size_t n : {values.size(), std::size_t(13), std::size_t(7), std::size_t(0)}) {
        std::vector<std::uint16_t> got(n, 0xFFFF);
        floatsToHalves(values.data(), got.data(), n);
        int mismatches = 0;
        for (std::size_t i = 0; i < n; ++i)
            if (got[i] != floatToHalf(values[i]))
                ++mismatches;
        QCOMPARE(mismatches, 0);
    }
}

void TestHalfPrecision::writeHalf() {
    QTemporaryDir dir;
    const auto path = dir.filePath(QStringLiteral("h.safetensors")).toStdString();
    const std::vector<float> w{0.1f, -3.14159f, 1e-6f, 65504.0f, 0.0f}, keep{0.1f};
    writeSafetensors(path, {{"w", {5}, w.data(), DType::F16}, {"keep", {1}, keep.data()}});
    const auto f = SafetensorsFile::open(path);
    QCOMPARE(f.find("w")->dtype, DType::F16);
    QCOMPARE(f.find("keep")->dtype, DType::F32);
    QCOMPARE(f.find("w")->end - f.find("w")->begin, uint64_t(10));
    std::vector<float> expected;
    for (float x : w)
        expected.push_back(halfToFloat(floatToHalf(x)));
    QCOMPARE(f.toFloat32(*f.find("w")), expected);
    QCOMPARE(f.toFloat32(*f.find("keep")), keep);
}

void TestHalfPrecision::halfOverflow_data() {
    QTest::addColumn<float>("value");
    QTest::addColumn<QString>("shown");
    QTest::newRow("just past largest") << 65505.0f << "65505";
    QTest::newRow("big") << 1e5f << "100000";
    QTest::newRow("negative") << -3e38f << "-3e+38";
}

void TestHalfPrecision::halfOverflow() {
    QFETCH(float, value);
    QFETCH(QString, shown);
    QTemporaryDir dir;
    const auto path = dir.filePath(QStringLiteral("o.safetensors")).toStdString();
    const std::vector<float> ok{1, 2, 3}, bad{0.5f, value, 1.0f};
    try {
        writeSafetensors(path,
                         {{"fine", {3}, ok.data(), DType::F16}, {"layer.w", {3}, bad.data(), DType::F16}});
        QFAIL("a value beyond F16's range was written");
    } catch (const InputError& e) {
        const auto msg = QString::fromStdString(e.what());
        QVERIFY2(msg.contains(QString::fromStdString(path)) &&
                     msg.contains(QStringLiteral("tensor 'layer.w'")) && msg.contains(shown) &&
                     msg.contains(QStringLiteral("element 1")) && msg.contains(QStringLiteral("65504")),
                 qPrintable(msg));
    }
    QVERIFY(QDir(dir.path()).isEmpty());
    writeSafetensors(path, {{"layer.w", {3}, bad.data()}}); // F32 holds it
}

void TestHalfPrecision::modelInHalf() {
    const auto model =
        randomModel(smallConfig(Architecture::EncoderDecoder, PositionalEncoding::Sinusoidal), 3);
    QTemporaryDir tmp;
    const auto f32 = tmp.filePath(QStringLiteral("f32")).toStdString();
    const auto f16 = tmp.filePath(QStringLiteral("f16")).toStdString();
    const auto again = tmp.filePath(QStringLiteral("again")).toStdString();
    model->save(f32);
    model->save(f16, DType::F16);
    const auto reloaded = Model::load(f16, DeviceChoice::Cpu);
    reloaded->save(again); // what the loaded model holds, as F32

    const auto ref = SafetensorsFile::open(f32 + "/model.safetensors");
    const auto half = SafetensorsFile::open(f16 + "/model.safetensors");
    QCOMPARE(half.tensors().size(), ref.tensors().size());
    double worst = 0;
    uint64_t tableBytes = 0, refData = 0, halfData = 0;
    for (const auto& t : ref.tensors()) {
        const auto* h = half.find(t.name);
        QVERIFY2(h && h->shape == t.shape, t.name.c_str());
        refData += t.end - t.begin;
        halfData += h->end - h->begin;
        const auto want = ref.toFloat32(t);
        const auto loaded = fileTensor(again, t.name);
        if (t.name.size() > 3 && t.name.compare(t.name.size() - 3, 3, ".pe") == 0) {
            QCOMPARE(h->dtype, DType::F32); // the sinusoidal tables stay exact
            QCOMPARE(loaded, want);
            tableBytes += t.end - t.begin;
            continue;
        }
        QCOMPARE(h->dtype, DType::F16);
        QCOMPARE(h->end - h->begin, (t.end - t.begin) / 2);
        for (std::size_t i = 0; i < want.size(); ++i) {
            // Within half a unit in the last place of an 11-bit significand (or of the subnormal spacing).
            const double err = std::fabs(double(loaded[i]) - want[i]);
            QVERIFY2(err <= std::max(std::fabs(double(want[i])) * std::ldexp(1.0, -11), std::ldexp(1.0, -25)),
                     t.name.c_str());
            QCOMPARE(loaded[i], halfToFloat(floatToHalf(want[i])));
            worst = std::max(worst, err);
        }
    }
    QVERIFY(worst > 0); // the weights really went through F16
    QCOMPARE(reloaded->positionalTable(true), model->positionalTable(true));

    // Same greedy choice, nearly the same distribution.
    const std::vector<int64_t> src{1, 10, 11, 12, 2}, tgt{1, 20, 21};
    const auto a = core::analyze(*model, src, tgt, false).nextTokenLogProbs;
    const auto b = core::analyze(*reloaded, src, tgt, false).nextTokenLogProbs;
    QCOMPARE(std::max_element(b.begin(), b.end()) - b.begin(),
             std::max_element(a.begin(), a.end()) - a.begin());
    for (std::size_t i = 0; i < a.size(); ++i)
        QVERIFY2(std::fabs(a[i] - b[i]) < 1e-2f, qPrintable(QString::number(a[i] - b[i])));

    // The data half the size but for the F32 tables; the file too, but for the header (9 KB of tensor names
    // and offsets here, a rounding error for a real model).
    QCOMPARE(halfData, (refData + tableBytes) / 2);
    const double big = double(std::filesystem::file_size(f32 + "/model.safetensors"));
    const double small = double(std::filesystem::file_size(f16 + "/model.safetensors"));
    qInfo("model.safetensors: F32 %.0f bytes, F16 %.0f bytes (%.3f); data %llu and %llu bytes", big, small,
          small / big, static_cast<unsigned long long>(refData), static_cast<unsigned long long>(halfData));
    QVERIFY2(small / big < 0.6, qPrintable(QString::number(small / big)));
}

void TestHalfPrecision::modelBeyondHalf() {
    // A model with one weight F16 can't hold: saving it as F16 names the tensor and leaves no directory.
    QTemporaryDir tmp;
    const auto dir = tmp.filePath(QStringLiteral("big")).toStdString();
    randomModel(smallConfig(Architecture::EncoderDecoder, PositionalEncoding::Sinusoidal))->save(dir);
    const auto file = SafetensorsFile::open(dir + "/model.safetensors");
    std::vector<std::vector<float>> values;
    std::vector<TensorToWrite> out;
    for (const auto& t : file.tensors())
        values.push_back(file.toFloat32(t));
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (file.tensors()[i].name == "generator.proj.weight")
            values[i][7] = -1e5f;
        out.push_back({file.tensors()[i].name, file.tensors()[i].shape, values[i].data()});
    }
    writeSafetensors(dir + "/model.safetensors", out);
    const auto model = Model::load(dir, DeviceChoice::Cpu);
    const auto f16 = tmp.filePath(QStringLiteral("f16")).toStdString();
    try {
        model->save(f16, DType::F16);
        QFAIL("a weight beyond F16's range was saved");
    } catch (const InputError& e) {
        QVERIFY2(QString::fromStdString(e.what()).contains(
                     QStringLiteral("tensor 'generator.proj.weight' holds -100000")),
                 e.what());
    }
    QVERIFY(!std::filesystem::exists(f16));
}

QTEST_APPLESS_MAIN(TestHalfPrecision)
#include "test_halfprecision.moc"
