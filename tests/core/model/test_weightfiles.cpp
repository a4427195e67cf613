// A model directory's weights as Hugging Face lays out large models: shards named by
// model.safetensors.index.json load to the very model one file gives, and an index that disagrees with its
// shards is refused naming the file and the tensor; PyTorch's pickled weights are refused with how to
// convert them, and scripts/convert-to-safetensors.py (Debian's python3-torch) converts them: every value
// kept in its dtype, integer buffers left out, a converted model computing what the original does.

#include "tests/support/ReferencePython.h"
#include "tests/support/SkipReport.h"

#include "core/base/Errors.h"
#include "core/base/Files.h"
#include "core/model/Model.h"
#include "core/model/WeightFiles.h"
#include "core/run/Analyze.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <cstring>
#include <filesystem>

namespace fs = std::filesystem;

namespace {

const std::string kReverse = ATTNSCOPE_SOURCE_DIR "/resources/models/reverse";

// A copy of the reverse model's folder without its weights.
void copyWithoutWeights(const std::string& to) {
    fs::create_directories(to);
    for (const auto& e : fs::directory_iterator(kReverse))
        if (e.path().filename() != "model.safetensors")
            fs::copy_file(e.path(), fs::path(to) / e.path().filename());
}

struct Shard {
    std::string file;
    std::vector<std::string> tensors;
};

// Writes the reverse model's tensors into shards, and an index naming `map` (tensor → file).
void writeShards(const std::string& dir, const std::vector<Shard>& shards, const std::string& indexJson) {
    const auto source = core::SafetensorsFile::open(kReverse + "/model.safetensors");
    for (const auto& s : shards) {
        std::vector<std::vector<float>> values;
        std::vector<core::TensorToWrite> out;
        values.reserve(s.tensors.size());
        for (const auto& name : s.tensors) {
            const auto* info = source.find(name);
            values.push_back(source.toFloat32(*info));
            out.push_back({name, info->shape, values.back().data()});
        }
        core::writeSafetensors(dir + "/" + s.file, out);
    }
    core::writeFileAtomically(dir + "/model.safetensors.index.json", indexJson);
}

// The reverse model's tensors split in two halves, with the index that says so.
std::pair<std::vector<Shard>, std::string> twoShards() {
    const auto source = core::SafetensorsFile::open(kReverse + "/model.safetensors");
    std::vector<Shard> shards{{"model-00001-of-00002.safetensors", {}},
                              {"model-00002-of-00002.safetensors", {}}};
    std::string map;
    int i = 0;
    for (const auto& t : source.tensors()) {
        auto& s = shards[std::size_t(i++ % 2)];
        s.tensors.push_back(t.name);
        map += (map.empty() ? "" : ", ") + ("\"" + t.name + "\": \"" + s.file + "\"");
    }
    return {shards, R"({"metadata": {"total_size": 0}, "weight_map": {)" + map + "}}"};
}

std::string loadError(const std::string& dir) {
    try {
        core::Model::load(dir, core::DeviceChoice::Cpu);
    } catch (const std::exception& e) {
        return e.what();
    }
    return {};
}

std::vector<float> logProbs(const std::string& dir) {
    const auto m = core::Model::load(dir, core::DeviceChoice::Cpu);
    return core::analyze(*m, {1, 5, 6, 7, 2}, {1, 7, 6}).nextTokenLogProbs;
}

} // namespace

class TestWeightFiles : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void shardsLoadAsOneFile();
    void refusesAnIndexAtOddsWithItsShards_data();
    void refusesAnIndexAtOddsWithItsShards();
    void refusesPickles();
    void aFileCutShortWhileOpenIsAMessage();
    void convertsPickledValues();
    void convertsAModel();
};

void TestWeightFiles::shardsLoadAsOneFile() {
    QTemporaryDir tmp;
    const auto dir = tmp.path().toStdString();
    copyWithoutWeights(dir);
    const auto [shards, index] = twoShards();
    writeShards(dir, shards, index);
    const auto w = core::WeightFiles::open(dir);
    QCOMPARE(w.shards(), std::size_t(2));
    QCOMPARE(w.tensors().size(),
             core::SafetensorsFile::open(kReverse + "/model.safetensors").tensors().size());
    const auto sharded = logProbs(dir), whole = logProbs(kReverse);
    QCOMPARE(sharded.size(), whole.size());
    QVERIFY(std::memcmp(sharded.data(), whole.data(), whole.size() * sizeof(float)) == 0);
    qInfo("%zu tensors in 2 shards: the next-token log-probabilities are the one file's, bit for bit",
          w.tensors().size());
}

void TestWeightFiles::refusesAnIndexAtOddsWithItsShards_data() {
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("message");
    QTest::newRow("not JSON") << "not JSON"
                              << "model.safetensors.index.json";
    QTest::newRow("no weight_map") << "no map"
                                   << "\"weight_map\" must be an object";
    QTest::newRow("a shard elsewhere") << "climbs"
                                       << "a shard must be a file beside the index";
    QTest::newRow("a shard missing") << "missing"
                                     << "its shard nope.safetensors is missing";
    QTest::newRow("a tensor in the other shard") << "wrong shard"
                                                 << "but the index puts it in";
    QTest::newRow("a tensor not in the map") << "unlisted"
                                             << "weight_map";
    QTest::newRow("a tensor not in its shard") << "absent"
                                               << "is not in its shard";
}

void TestWeightFiles::refusesAnIndexAtOddsWithItsShards() {
    QFETCH(QString, kind);
    QFETCH(QString, message);
    QTemporaryDir tmp;
    const auto dir = tmp.path().toStdString();
    copyWithoutWeights(dir);
    auto [shards, index] = twoShards();
    const auto first = shards[0].tensors.front(), second = shards[1].tensors.front();
    auto replace = [&index](const std::string& from, const std::string& to) {
        const auto at = index.find(from);
        QVERIFY(at != std::string::npos);
        index.replace(at, from.size(), to);
    };
    if (kind == "not JSON")
        index = "{\"weight_map\": ";
    else if (kind == "no map")
        index = R"({"metadata": {}})";
    else if (kind == "climbs")
        replace("\"" + first + "\": \"model-00001-of-00002.safetensors\"",
                "\"" + first + "\": \"../x.safetensors\"");
    else if (kind == "missing")
        replace("\"" + first + "\": \"model-00001-of-00002.safetensors\"",
                "\"" + first + "\": \"nope.safetensors\"");
    else if (kind == "wrong shard")
        replace("\"" + second + "\": \"model-00002-of-00002.safetensors\"",
                "\"" + second + "\": \"model-00001-of-00002.safetensors\"");
    else if (kind == "unlisted")
        replace("\"" + first + "\": \"model-00001-of-00002.safetensors\", ", "");
    else if (kind == "absent")
        replace("\"weight_map\": {",
                "\"weight_map\": {\"decoder.extra.weight\": \"model-00002-of-00002.safetensors\", ");
    writeShards(dir, shards, index);
    const auto error = QString::fromStdString(loadError(dir));
    QVERIFY2(error.contains(message), qPrintable(error));
}

void TestWeightFiles::refusesPickles() {
    QTemporaryDir tmp;
    const auto dir = tmp.path().toStdString();
    copyWithoutWeights(dir);
    core::writeFileAtomically(dir + "/pytorch_model.bin", "PK\x03\x04 not read");
    const auto error = QString::fromStdString(loadError(dir));
    QVERIFY2(error.contains(QStringLiteral("pickled pytorch_model.bin")) &&
                 error.contains(QStringLiteral("scripts/convert-to-safetensors.py")),
             qPrintable(error));
    fs::remove(dir + "/pytorch_model.bin");
    const auto none = QString::fromStdString(loadError(dir));
    QVERIFY2(none.contains(QStringLiteral("missing model.safetensors")), qPrintable(none));
    qInfo("%s", qPrintable(error));
}

void TestWeightFiles::aFileCutShortWhileOpenIsAMessage() {
    // Tensors are read from the open file when they are copied out; a file another program truncates in
    // between is a message naming it, not a crash (as a memory mapping's SIGBUS would be).
    QTemporaryDir tmp;
    const auto path = tmp.filePath(QStringLiteral("w.safetensors")).toStdString();
    fs::copy_file(kReverse + "/model.safetensors", path);
    const auto file = core::SafetensorsFile::open(path);
    const auto* last = &file.tensors().front();
    for (const auto& t : file.tensors())
        if (t.end > last->end)
            last = &t;
    fs::resize_file(path, fs::file_size(path) / 2);
    try {
        file.toFloat32(*last);
        QFAIL("a truncated file was read");
    } catch (const core::IoError& e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("the file changed while it was read")),
                 e.what());
        qInfo("%s", e.what());
    }
}

namespace {

// Runs scripts/convert-to-safetensors.py; its exit code, with what it printed.
int convert(const QStringList& args, QString* output) {
    QProcess p;
    p.start(QStringLiteral("/usr/bin/python3"),
            QStringList{QStringLiteral(ATTNSCOPE_SOURCE_DIR "/scripts/convert-to-safetensors.py")} + args);
    if (!p.waitForFinished(300000))
        return -1;
    *output = QString::fromUtf8(p.readAllStandardOutput() + p.readAllStandardError());
    return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
}

} // namespace

void TestWeightFiles::convertsPickledValues() {
    QTemporaryDir tmp;
    QString why;
    if (!runReferenceScript({QStringLiteral("make_pickled_weights.py"), QStringLiteral("values"), tmp.path()},
                            &why)) {
        if (why.startsWith(QStringLiteral("skipped: ")))
            QSKIP_MISSING(qPrintable(why));
        QFAIL(qPrintable(why));
    }
    QString out;
    QCOMPARE(convert({tmp.path()}, &out), 0);
    QVERIFY2(out.contains(QStringLiteral("left out ids (int64)")), qPrintable(out));
    const auto file =
        core::SafetensorsFile::open(tmp.filePath(QStringLiteral("model.safetensors")).toStdString());
    // Each kept in its dtype; float64 as F32.
    const std::pair<const char*, core::DType> kinds[] = {{"w16", core::DType::F16},
                                                         {"w32", core::DType::F32},
                                                         {"w64", core::DType::F32},
                                                         {"wbf", core::DType::BF16}};
    std::vector<float> got;
    for (const auto& [name, dtype] : kinds) {
        const auto* t = file.find(name);
        QVERIFY2(t, name);
        QCOMPARE(int(t->dtype), int(dtype));
        const auto v = file.toFloat32(*t);
        got.insert(got.end(), v.begin(), v.end());
    }
    QCOMPARE(file.tensors().size(), std::size_t(4));
    const auto expected = core::readFile(tmp.filePath(QStringLiteral("expected.f32")).toStdString());
    QCOMPARE(expected.size(), got.size() * sizeof(float));
    QVERIFY(std::memcmp(expected.data(), got.data(), expected.size()) == 0);
    // A second run does not overwrite what the first wrote.
    QCOMPARE(convert({tmp.path()}, &out), 2);
    QVERIFY2(out.contains(QStringLiteral("exists already")), qPrintable(out));
    qInfo("converted %zu values (F32, F16, BF16, F64 as F32) exactly; the int64 buffer left out", got.size());
}

void TestWeightFiles::convertsAModel() {
    QTemporaryDir tmp;
    const auto dir = tmp.path().toStdString();
    copyWithoutWeights(dir);
    QString why;
    if (!runReferenceScript({QStringLiteral("make_pickled_weights.py"), QStringLiteral("model"),
                             QString::fromStdString(kReverse), tmp.path()},
                            &why)) {
        if (why.startsWith(QStringLiteral("skipped: ")))
            QSKIP_MISSING(qPrintable(why));
        QFAIL(qPrintable(why));
    }
    QVERIFY(loadError(dir).find("convert-to-safetensors.py") != std::string::npos);
    QString out;
    QCOMPARE(convert({tmp.path()}, &out), 0);
    QVERIFY2(out.contains(QStringLiteral("left out position_ids (int64)")), qPrintable(out));
    const auto converted = logProbs(dir), original = logProbs(kReverse);
    QCOMPARE(converted.size(), original.size());
    QVERIFY(std::memcmp(converted.data(), original.data(), original.size() * sizeof(float)) == 0);
    qInfo("the reverse model pickled ({\"state_dict\": ...}, with a position_ids buffer) and converted: its "
          "log-probabilities are the original's, bit for bit");
}

ATTNSCOPE_GUILESS_MAIN(TestWeightFiles)
#include "test_weightfiles.moc"
