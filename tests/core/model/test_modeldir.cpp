// A model directory round-trips, and a broken one is refused with a message naming the file and the tensor.

#include "tests/support/TestModels.h"

#include "core/base/Errors.h"
#include "core/model/Safetensors.h"
#include "core/run/Analyze.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>

#include <sys/stat.h>

namespace fs = std::filesystem;

class TestModelDir : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init();
    void roundTrip();
    void variantsRoundTrip();
    void broken_data();
    void broken();

private:
    QTemporaryDir tmp_;
    std::string dir_;
};

void TestModelDir::init() {
    dir_ = (tmp_.path() + QStringLiteral("/m")).toStdString();
    fs::remove_all(dir_);
    randomModel(smallConfig(core::Architecture::EncoderDecoder, core::PositionalEncoding::Sinusoidal), 5)
        ->save(dir_);
}

void TestModelDir::roundTrip() {
    const auto a =
        randomModel(smallConfig(core::Architecture::EncoderDecoder, core::PositionalEncoding::Sinusoidal), 5);
    const auto b = core::Model::load(dir_, core::DeviceChoice::Cpu);
    const auto sa = core::analyze(*a, {1, 5, 6, 2}, {1, 7});
    const auto sb = core::analyze(*b, {1, 5, 6, 2}, {1, 7});
    QCOMPARE(sa.nextTokenLogProbs, sb.nextTokenLogProbs);
    QCOMPARE(sa.cross.data, sb.cross.data);
    QCOMPARE(b->config().toJson(), a->config().toJson());
}

void TestModelDir::variantsRoundTrip() {
    using namespace core;
    for (auto pos : {PositionalEncoding::Learned, PositionalEncoding::Rope, PositionalEncoding::None})
        for (auto arch : {Architecture::EncoderDecoder, Architecture::DecoderOnly}) {
            auto c = smallConfig(arch, pos, LayerNormKind::Standard);
            c.activation = Activation::GeluTanh;
            c.tieOutput = true;
            c.shareEmbeddings = arch == Architecture::EncoderDecoder;
            const auto a = randomModel(c, 9);
            const auto d = (tmp_.path() + QStringLiteral("/v")).toStdString();
            fs::remove_all(d);
            a->save(d);
            const auto b = Model::load(d, DeviceChoice::Cpu);
            QCOMPARE(core::analyze(*b, {1, 5, 2}, {1, 6, 7}).nextTokenLogProbs,
                     core::analyze(*a, {1, 5, 2}, {1, 6, 7}).nextTokenLogProbs);
        }
}

void TestModelDir::broken_data() {
    QTest::addColumn<QString>("breakage");
    QTest::addColumn<QString>("fragment");
    QTest::newRow("no config") << "rm config.json"
                               << "missing config.json";
    QTest::newRow("no weights") << "rm model.safetensors"
                                << "missing model.safetensors";
    QTest::newRow("no vocab") << "rm vocab.json"
                              << "missing tokenizer file 'vocab.json'";
    QTest::newRow("truncated") << "truncate"
                               << "model.safetensors";
    QTest::newRow("wrong shape") << "d_ff"
                                 << "tensor 'encoder.layers.0.feed_forward.w_1.weight' has shape [64, 32] "
                                    "but config.json implies [128, 32]";
    QTest::newRow("vocab size") << "vocab size"
                                << "tgt_vocab_size";
    QTest::newRow("missing tensor") << "fewer layers in file"
                                    << "missing tensor 'decoder.layers.2.";
    // Far more parameters than the file holds: refused before they are allocated.
    QTest::newRow("sizes beyond the file") << "d_ff 100000"
                                           << "values, but config.json describes a model of";
    QTest::newRow("sizes beyond memory") << "d_ff 2^20, d_model 65536"
                                         << "config.json: the weights of this model need";
    QTest::newRow("NaN weight") << "NaN"
                                << "tensor 'decoder.norm.b_2' holds NaN (element 3); weights must be finite";
    QTest::newRow("infinite weight") << "inf"
                                     << "tensor 'generator.proj.weight' holds an infinity (element 0)";
    QTest::newRow("weights are a FIFO") << "fifo"
                                        << "model.safetensors: it is a FIFO, not a regular file";
    QTest::newRow("config is a directory") << "config dir"
                                           << "config.json: it is a directory, not a regular file";
    QTest::newRow("unexpected tensor") << "more layers in file"
                                       << "unexpected tensor 'decoder.layers.1.";
    QTest::newRow("not a dir") << "rm -r"
                               << "not a model directory";
}

void TestModelDir::broken() {
    QFETCH(QString, breakage);
    QFETCH(QString, fragment);
    const fs::path d(dir_);
    auto editConfig = [&](const char* key, int value) {
        std::ifstream in(d / "config.json");
        auto j = nlohmann::json::parse(in);
        j[key] = value;
        std::ofstream(d / "config.json") << j.dump();
    };
    if (breakage == QStringLiteral("rm config.json"))
        fs::remove(d / "config.json");
    else if (breakage == QStringLiteral("rm model.safetensors"))
        fs::remove(d / "model.safetensors");
    else if (breakage == QStringLiteral("rm vocab.json"))
        fs::remove(d / "vocab.json");
    else if (breakage == QStringLiteral("truncate"))
        fs::resize_file(d / "model.safetensors", fs::file_size(d / "model.safetensors") - 100);
    else if (breakage == QStringLiteral("d_ff"))
        editConfig("d_ff", 128);
    else if (breakage == QStringLiteral("vocab size"))
        editConfig("tgt_vocab_size", 41);
    else if (breakage == QStringLiteral("fewer layers in file"))
        editConfig("decoder_layers", 3);
    else if (breakage == QStringLiteral("more layers in file"))
        editConfig("decoder_layers", 1);
    else if (breakage == QStringLiteral("rm -r"))
        fs::remove_all(d);
    else if (breakage == QStringLiteral("d_ff 100000"))
        editConfig("d_ff", 100000);
    else if (breakage == QStringLiteral("d_ff 2^20, d_model 65536")) {
        editConfig("d_ff", 1 << 20);
        editConfig("d_model", 65536);
    } else if (breakage == QStringLiteral("NaN") || breakage == QStringLiteral("inf")) {
        // The file rewritten with one value poisoned; everything else stays valid.
        const auto path = (d / "model.safetensors").string();
        const auto file = core::SafetensorsFile::open(path);
        const bool nan = breakage == QStringLiteral("NaN");
        std::vector<std::vector<float>> values;
        std::vector<core::TensorToWrite> out;
        for (const auto& info : file.tensors()) {
            values.push_back(file.toFloat32(info));
            if (info.name == (nan ? "decoder.norm.b_2" : "generator.proj.weight"))
                values.back()[nan ? 3 : 0] = nan ? std::nanf("") : -HUGE_VALF;
        }
        for (std::size_t i = 0; i < file.tensors().size(); ++i)
            out.push_back({file.tensors()[i].name, file.tensors()[i].shape, values[i].data()});
        core::writeSafetensors(path, out);
    } else if (breakage == QStringLiteral("fifo")) {
        fs::remove(d / "model.safetensors");
        QCOMPARE(::mkfifo((d / "model.safetensors").c_str(), 0600), 0);
    } else if (breakage == QStringLiteral("config dir")) {
        fs::remove(d / "config.json");
        fs::create_directory(d / "config.json");
    }
    try {
        core::Model::load(dir_, core::DeviceChoice::Cpu);
        QFAIL("a broken model directory was accepted");
    } catch (const core::Error& e) {
        const auto msg = QString::fromStdString(e.what());
        QVERIFY2(msg.contains(fragment), qPrintable(msg));
    }
}

QTEST_GUILESS_MAIN(TestModelDir)
#include "test_modeldir.moc"
