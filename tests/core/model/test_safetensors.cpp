// The safetensors reader and writer: round trip, F16/BF16 reading, and malformed files refused with a
// message that names the file, the tensor and the problem. Half precision's rounding and models saved in it:
// test_halfprecision.

#include "core/base/Errors.h"
#include "core/model/Safetensors.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <ctime>
#include <filesystem>

using namespace core;

class TestSafetensors : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void roundTrip();
    void halfAndBfloat();
    void emptyTensor_data();
    void emptyTensor();
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
    // I64, as transformers saved its position_ids buffers: read as the numbers they are.
    const qint64 ints[] = {0, 511, -3};
    const auto g =
        SafetensorsFile::fromBytes(assemble(R"({"p":{"dtype":"I64","shape":[3],"data_offsets":[0,24]}})",
                                            QByteArray(reinterpret_cast<const char*>(ints), sizeof ints))
                                       .toStdString(),
                                   "mem");
    QCOMPARE(g.toFloat32(*g.find("p")), (std::vector<float>{0.0f, 511.0f, -3.0f}));
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
    QTest::newRow("I64 [0]") << QByteArray("I64") << QByteArray("[0]");
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
    QTest::newRow("dtype") << assemble(R"({"w":{"dtype":"F64","shape":[1],"data_offsets":[0,8]}})", d8)
                           << "tensor 'w': unsupported dtype F64";
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

namespace {

// A header of n one-byte tensors t0, t1, … in order.
QByteArray manyTensorsHeader(int n) {
    QByteArray header = "{";
    for (int i = 0; i < n; ++i)
        header +=
            (i ? "," : "") + QStringLiteral(R"("t%1":{"dtype":"U8","shape":[1],"data_offsets":[%1,%2]})")
                                 .arg(i)
                                 .arg(i + 1)
                                 .toUtf8();
    return header + "}";
}

// The CPU time this thread has used: what a parse costs, which a busy machine leaves about as it is, where
// it stretches the wall time.
double threadSeconds() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

} // namespace

void TestSafetensors::manyTensors() {
    // 100,000 tensors in one header took 101 s to parse: the duplicate-key check went through the JSON
    // library's DOM callback, which rescans the enclosing object each time an inner one closes, so the time
    // grew with the square of the tensors. It is linear now. A header four times as long must cost about four
    // times the CPU time (4.1 to 5.5 on two cores, idle or running six busy processes), where the square
    // makes it sixteen (22 with the old check, 5,000 and 20,000 tensors): a bound of 10 that the load of the
    // machine does not move, as it moves the wall time. The least of five parses of each, taken in turns, so
    // that a busy spell weighs on both sizes alike.
    constexpr int small = 5000, large = 20000;
    const auto smallFile = assemble(manyTensorsHeader(small), QByteArray(small, '\x01')).toStdString();
    const auto largeFile = assemble(manyTensorsHeader(large), QByteArray(large, '\x01')).toStdString();
    double smallSeconds = 1e30, largeSeconds = 1e30;
    for (int round = 0; round < 5; ++round)
        for (const auto* bytes : {&smallFile, &largeFile}) {
            const double start = threadSeconds();
            const auto file = SafetensorsFile::fromBytes(*bytes, "many");
            const double took = threadSeconds() - start;
            auto& best = bytes == &smallFile ? smallSeconds : largeSeconds;
            best = std::min(best, took);
            QCOMPARE(file.tensors().size(), std::size_t(bytes == &smallFile ? small : large));
        }
    const double ratio = largeSeconds / smallSeconds;
    qInfo("CPU time of a header of %d tensors %.1f ms, of %d tensors %.1f ms: %.2f times", small,
          smallSeconds * 1e3, large, largeSeconds * 1e3, ratio);
    QVERIFY2(ratio < 10.0,
             qPrintable(QStringLiteral("4 times the tensors took %1 times the CPU time: the parse "
                                       "grows faster than linearly")
                            .arg(ratio)));

    constexpr int n = 100000;
    const auto header = manyTensorsHeader(n);
    const auto file =
        SafetensorsFile::fromBytes(assemble(header, QByteArray(n, '\x01')).toStdString(), "many");
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
