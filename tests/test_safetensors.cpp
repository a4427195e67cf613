// The safetensors reader and writer: round trip, F16/BF16 conversion, and malformed files refused
// with a message that names the file, the tensor and the problem; models saved with F16 weights.

#include "TestModels.h"

#include "core/base/Errors.h"
#include "core/model/Safetensors.h"
#include "core/run/Analyze.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>

using namespace core;

class TestSafetensors : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void roundTrip();
    void halfAndBfloat();
    void emptyTensor_data();
    void emptyTensor();
    void halfExact_data();
    void halfExact();
    void halfRounding_data();
    void halfRounding();
    void halfEveryValue();
    void writeHalf();
    void halfOverflow_data();
    void halfOverflow();
    void modelInHalf();
    void modelBeyondHalf();
    void malformed_data();
    void malformed();
    void nonFinite_data();
    void nonFinite();
    void manyTensors();
    void missingFile();
    void unwritableDirectory();
};

namespace {

// A file from a header string and raw data bytes.
QByteArray assemble(const QByteArray& header, const QByteArray& data) {
    QByteArray out(8, '\0');
    const quint64 n = quint64(header.size());
    std::memcpy(out.data(), &n, 8);
    return out + header + data;
}

QByteArray floats(std::initializer_list<float> v) {
    QByteArray b;
    for (float f : v)
        b.append(reinterpret_cast<const char*>(&f), 4);
    return b;
}

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

void TestSafetensors::roundTrip() {
    QTemporaryDir dir;
    const auto path = dir.filePath(QStringLiteral("t.safetensors")).toStdString();
    const std::vector<float> a{1, 2, 3, 4, 5, 6}, scalar{7.5f};
    writeSafetensors(
        path, {{"b.matrix", {2, 3}, a.data()}, {"a.scalar", {}, scalar.data()}, {"c.empty", {0}, nullptr}},
        {{"producer", "test"}});
    const auto f = SafetensorsFile::open(path);
    QCOMPARE(f.tensors().size(), std::size_t(3));
    QCOMPARE(f.find("b.matrix")->shape, (std::vector<int64_t>{2, 3}));
    QCOMPARE(f.toFloat32(*f.find("b.matrix")), a);
    QCOMPARE(f.toFloat32(*f.find("a.scalar")), scalar);
    QCOMPARE(f.find("c.empty")->numel(), int64_t(0));
    QCOMPARE(f.metadata().at("producer"), std::string("test"));
    QVERIFY(f.find("nope") == nullptr);
    QFile raw(QString::fromStdString(path));
    QVERIFY(raw.open(QIODevice::ReadOnly));
    const auto bytes = raw.readAll();
    quint64 n = 0;
    std::memcpy(&n, bytes.constData(), 8);
    QCOMPARE(n % 8, quint64(0)); // data aligned as Hugging Face writes it
    QCOMPARE(quint64(bytes.size()), 8 + n + 7 * 4);
    for (const auto& e : std::filesystem::directory_iterator(dir.path().toStdString()))
        QVERIFY2(e.path().filename() == "t.safetensors", e.path().c_str()); // no temporary file left
}

void TestSafetensors::halfAndBfloat() {
    // 1.0, -2.5, 65504 (largest half), 2^-24 (smallest subnormal), 0
    const quint16 half[] = {0x3C00, 0xC100, 0x7BFF, 0x0001, 0x0000};
    const quint16 bf[] = {0x3F80, 0xC020, 0x4780};
    QByteArray data(reinterpret_cast<const char*>(half), sizeof half);
    data.append(reinterpret_cast<const char*>(bf), sizeof bf);
    const auto f = SafetensorsFile::fromBytes(
        assemble(
            R"({"h":{"dtype":"F16","shape":[5],"data_offsets":[0,10]},"b":{"dtype":"BF16","shape":[3],"data_offsets":[10,16]}})",
            data)
            .toStdString(),
        "mem");
    QCOMPARE(f.toFloat32(*f.find("h")),
             (std::vector<float>{1.0f, -2.5f, 65504.0f, 5.9604644775390625e-8f, 0.0f}));
    QCOMPARE(f.toFloat32(*f.find("b")), (std::vector<float>{1.0f, -2.5f, 65536.0f}));
}

// An empty tensor of every dtype reads as no values. Found by fuzzing: an empty F32 tensor copied 0 bytes to
// the null data() of an empty vector, which memcpy does not allow (UBSan stops there).
void TestSafetensors::emptyTensor_data() {
    QTest::addColumn<QByteArray>("dtype");
    QTest::addColumn<QByteArray>("shape");
    QTest::newRow("F32 [0]") << QByteArray("F32") << QByteArray("[0]");
    QTest::newRow("F32 [3,0]") << QByteArray("F32") << QByteArray("[3,0]");
    QTest::newRow("F16 [0]") << QByteArray("F16") << QByteArray("[0]");
    QTest::newRow("BF16 [0,2]") << QByteArray("BF16") << QByteArray("[0,2]");
    QTest::newRow("U8 [0]") << QByteArray("U8") << QByteArray("[0]");
    QTest::newRow("BOOL [0]") << QByteArray("BOOL") << QByteArray("[0]");
}

void TestSafetensors::emptyTensor() {
    QFETCH(QByteArray, dtype);
    QFETCH(QByteArray, shape);
    const auto f = SafetensorsFile::fromBytes(
        assemble(R"({"e":{"dtype":")" + dtype + R"(","shape":)" + shape + R"(,"data_offsets":[0,0]}})", {})
            .toStdString(),
        "mem");
    QCOMPARE(f.find("e")->numel(), int64_t(0));
    QVERIFY(f.toFloat32(*f.find("e")).empty());
    f.copyFloat32(*f.find("e"), nullptr);
}

void TestSafetensors::halfExact_data() {
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

void TestSafetensors::halfExact() {
    QFETCH(float, value);
    QFETCH(quint16, bits);
    QCOMPARE(floatToHalf(value), bits);
    QCOMPARE(floatBits(halfToFloat(bits)), floatBits(value));
}

void TestSafetensors::halfRounding_data() {
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

void TestSafetensors::halfRounding() {
    QFETCH(float, value);
    QFETCH(quint16, bits);
    QCOMPARE(floatToHalf(value), bits);
}

void TestSafetensors::halfEveryValue() {
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

void TestSafetensors::writeHalf() {
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

void TestSafetensors::halfOverflow_data() {
    QTest::addColumn<float>("value");
    QTest::addColumn<QString>("shown");
    QTest::newRow("just past largest") << 65505.0f << "65505";
    QTest::newRow("big") << 1e5f << "100000";
    QTest::newRow("negative") << -3e38f << "-3e+38";
}

void TestSafetensors::halfOverflow() {
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

void TestSafetensors::modelInHalf() {
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

void TestSafetensors::modelBeyondHalf() {
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

void TestSafetensors::malformed_data() {
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("fragment");
    const auto d8 = floats({1, 2});
    const QByteArray ok = R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
    QTest::newRow("too short") << QByteArray("abc") << "too short";
    QTest::newRow("header past end") << assemble(ok, d8).left(20) << "runs past the end";
    QByteArray huge(8, '\xff');
    QTest::newRow("absurd header") << huge + d8 << "absurd";
    QTest::newRow("not json") << assemble("{\"w\": [", d8) << "not valid JSON";
    QTest::newRow("not object") << assemble("[1,2]", d8) << "not a JSON object";
    QTest::newRow("number overflow")
        << assemble(R"({"w":{"dtype":"F32","shape":[1e400],"data_offsets":[0,8]}})", d8) << "not valid JSON";
    QTest::newRow("nested deep") << assemble(QByteArray(70000, '[') + QByteArray(70000, ']'), d8)
                                 << "nested more than 64 levels deep";
    QTest::newRow("truncated data") << assemble(ok, d8.left(6))
                                    << "tensor 'w': data_offsets [0, 8] are out of range";
    QTest::newRow("size mismatch")
        << assemble(R"({"w":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", d8)
        << "tensor 'w': data_offsets [0, 8] hold 8 bytes but F32 shape [3] needs 12";
    QTest::newRow("overlap")
        << assemble(
               R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
               d8)
        << "overlap";
    QTest::newRow("hole") << assemble(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", d8)
                          << "belong to no tensor";
    QTest::newRow("trailing") << assemble(ok, d8 + floats({3})) << "trailing bytes";
    QTest::newRow("dtype") << assemble(R"({"w":{"dtype":"I64","shape":[1],"data_offsets":[0,8]}})", d8)
                           << "tensor 'w': unsupported dtype I64";
    QTest::newRow("negative dim") << assemble(R"({"w":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})",
                                              d8)
                                  << "tensor 'w': shape [-2]";
    QTest::newRow("offsets reversed")
        << assemble(R"({"w":{"dtype":"F32","shape":[0],"data_offsets":[8,0]}})", d8)
        << "begin after they end";
    QTest::newRow("offsets type") << assemble(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":"0-8"}})", d8)
                                  << "two non-negative integers";
    QTest::newRow("missing key") << assemble(R"({"w":{"dtype":"F32","data_offsets":[0,8]}})", d8)
                                 << "lacks 'shape'";
    QTest::newRow("duplicate")
        << assemble(
               R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"w":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
               d8)
        << "tensor 'w': appears twice";
    QTest::newRow("metadata")
        << assemble(R"({"__metadata__":{"k":1},"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", d8)
        << "__metadata__ value of 'k'";
}

void TestSafetensors::malformed() {
    QFETCH(QByteArray, bytes);
    QFETCH(QString, fragment);
    try {
        SafetensorsFile::fromBytes(bytes.toStdString(), "bad.safetensors");
        QFAIL("a malformed file was accepted");
    } catch (const FormatError& e) {
        const auto msg = QString::fromStdString(e.what());
        QVERIFY2(msg.startsWith(QStringLiteral("bad.safetensors: ")), qPrintable(msg));
        QVERIFY2(msg.contains(fragment), qPrintable(msg));
    }
}

void TestSafetensors::nonFinite_data() {
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("fragment");
    const auto f32 = [](float bad) { return floats({1, bad}); };
    const QByteArray w32 = R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
    QTest::newRow("F32 NaN") << assemble(w32, f32(std::nanf(""))) << "tensor 'w' holds NaN (element 1)";
    QTest::newRow("F32 inf") << assemble(w32, f32(HUGE_VALF)) << "tensor 'w' holds an infinity (element 1)";
    QTest::newRow("F32 -inf") << assemble(w32, f32(-HUGE_VALF)) << "tensor 'w' holds an infinity (element 1)";
    const QByteArray w16 = R"({"w":{"dtype":"F16","shape":[2],"data_offsets":[0,4]}})";
    QTest::newRow("F16 inf") << assemble(w16, QByteArray("\x00\x3c\x00\x7c", 4)) // 1.0, +inf
                             << "tensor 'w' holds an infinity (element 1)";
    const QByteArray b16 = R"({"w":{"dtype":"BF16","shape":[2],"data_offsets":[0,4]}})";
    QTest::newRow("BF16 NaN") << assemble(b16, QByteArray("\xc0\x7f\x80\x3f", 4)) // NaN, 1.0
                              << "tensor 'w' holds NaN (element 0)";
}

void TestSafetensors::nonFinite() {
    // A NaN weight loaded fine and then decoded <pad> forever; the reader refuses it by name.
    QFETCH(QByteArray, bytes);
    QFETCH(QString, fragment);
    const auto file = SafetensorsFile::fromBytes(bytes.toStdString(), "nan.safetensors");
    try {
        file.toFloat32(file.tensors().at(0));
        QFAIL("a non-finite weight was read");
    } catch (const FormatError& e) {
        QVERIFY2(QString::fromUtf8(e.what()).startsWith(QStringLiteral("nan.safetensors: ") + fragment),
                 e.what());
    }
}

void TestSafetensors::manyTensors() {
    // 100,000 tensors in one header took 101 s to parse (the duplicate-key check was quadratic); it is
    // linear now, so this runs in well under a second, and a regression shows as a test that takes minutes.
    constexpr int n = 100000;
    QByteArray header = "{";
    for (int i = 0; i < n; ++i)
        header +=
            (i ? "," : "") + QStringLiteral(R"("t%1":{"dtype":"U8","shape":[1],"data_offsets":[%1,%2]})")
                                 .arg(i)
                                 .arg(i + 1)
                                 .toUtf8();
    header += "}";
    QElapsedTimer timer;
    timer.start();
    const auto file =
        SafetensorsFile::fromBytes(assemble(header, QByteArray(n, '\x01')).toStdString(), "many");
    qInfo("a header of %d tensors (%lld bytes) parsed in %lld ms", n, static_cast<long long>(header.size()),
          static_cast<long long>(timer.elapsed()));
    QCOMPARE(file.tensors().size(), std::size_t(n));
    QVERIFY(file.find("t99999") != nullptr);
    QCOMPARE(file.find("t99999")->begin, uint64_t(99999));
}

void TestSafetensors::missingFile() {
    try {
        SafetensorsFile::open("/nonexistent/x.safetensors");
        QFAIL("opened a missing file");
    } catch (const IoError& e) {
        QVERIFY(QString::fromStdString(e.what()).contains(QStringLiteral("/nonexistent/x.safetensors")));
    }
}

void TestSafetensors::unwritableDirectory() {
    const std::vector<float> a{1};
    QVERIFY_THROWS_EXCEPTION(IoError,
                             writeSafetensors("/nonexistent-dir/x.safetensors", {{"a", {1}, a.data()}}));
}

QTEST_APPLESS_MAIN(TestSafetensors)
#include "test_safetensors.moc"
