// A Hugging Face GPT-2 directory loads as it is: config.json's GPT2Config keys map to our config, the
// transformers tensor names and Conv1D layouts to our weights, and the outputs match a GPT-2 written from the
// published design (tests/reference/gpt2_reference.py); what we don't implement is refused by name.

#include "tests/support/CheckpointEdit.h"
#include "tests/support/CliRunner.h"
#include "tests/support/ReferencePython.h"
#include "tests/support/SkipReport.h"

#include "core/base/Errors.h"
#include "core/base/Files.h"
#include "core/model/Gpt2Checkpoint.h"
#include "core/model/Model.h"
#include "core/model/ModelDirectory.h"
#include "core/model/Safetensors.h"
#include "core/run/Analyze.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr double kTolerance = 1e-4;

json readJson(const fs::path& p) {
    std::ifstream in(p);
    return json::parse(in);
}

} // namespace

class TestGpt2Checkpoint : public QObject, public CliRunner {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void matchesReference_data();
    void matchesReference();
    void configMapping_data();
    void configMapping();
    void recognisesConfigs();
    void refused_data();
    void refused();
    void savesOurFormat();
    void commandLine();
    void cleanupTestCase();

private:
    /// Writes the reference checkpoint into dir (the script's options in args); false with a reason when
    /// python or torch is missing.
    bool makeCheckpoint(const QString& dir, const QStringList& args, QString* why);
    std::string base_; // the F32 checkpoint every other test starts from
    double worstLogProb_ = 0.0, worstAttention_ = 0.0;
};

bool TestGpt2Checkpoint::makeCheckpoint(const QString& dir, const QStringList& args, QString* why) {
    return runReferenceScript(QStringList{QStringLiteral("gpt2_reference.py"), dir} + args, why);
}

void TestGpt2Checkpoint::initTestCase() {
    QVERIFY(tmp_.isValid());
    const auto dir = tmp_.filePath(QStringLiteral("base"));
    QString why;
    if (!makeCheckpoint(dir, {}, &why)) {
        if (why.startsWith(QStringLiteral("skipped")))
            QSKIP_MISSING(qPrintable(why));
        QFAIL(qPrintable(why));
    }
    base_ = dir.toStdString();
}

void TestGpt2Checkpoint::matchesReference_data() {
    QTest::addColumn<QStringList>("args");
    QTest::newRow("F32") << QStringList{};
    QTest::newRow("F16") << QStringList{QStringLiteral("--dtype"), QStringLiteral("F16")};
    QTest::newRow("BF16") << QStringList{QStringLiteral("--dtype"), QStringLiteral("BF16")};
    QTest::newRow("GPT2LMHeadModel names") << QStringList{QStringLiteral("--prefix")};
    QTest::newRow("U8 mask buffers") << QStringList{QStringLiteral("--mask"), QStringLiteral("U8")};
    QTest::newRow("BOOL mask buffers") << QStringList{QStringLiteral("--mask"), QStringLiteral("BOOL")};
    QTest::newRow("no mask buffers") << QStringList{QStringLiteral("--mask"), QStringLiteral("none")};
}

void TestGpt2Checkpoint::matchesReference() {
    QFETCH(QStringList, args);
    const auto dir = tmp_.filePath(QStringLiteral("ref-") + QString::fromLatin1(QTest::currentDataTag()));
    QString why;
    QVERIFY2(makeCheckpoint(dir, args, &why), qPrintable(why));
    const auto ref = readJson(fs::path(dir.toStdString()) / "reference.json");
    const auto model = core::Model::load(dir.toStdString(), core::DeviceChoice::Cpu);
    const auto ids = ref["ids"].get<std::vector<int64_t>>();
    QCOMPARE(ids.front(), model->targetTokenizer().vocab().bos()); // <|endoftext|> starts the prompt

    // Every position's next-token distribution: analyze keeps only the last, so one call per prefix.
    double worstLogProb = 0.0;
    for (std::size_t t = 1; t <= ids.size(); ++t) {
        const auto snap = core::analyze(*model, {}, {ids.begin(), ids.begin() + long(t)}, /*capture=*/false);
        const auto& want = ref["logprobs"][t - 1];
        QCOMPARE(snap.nextTokenLogProbs.size(), want.size());
        for (std::size_t v = 0; v < want.size(); ++v)
            worstLogProb =
                std::max(worstLogProb, std::abs(snap.nextTokenLogProbs[v] - want[v].get<double>()));
    }
    const auto snap = core::analyze(*model, {}, ids);
    const auto& block = snap.decoder;
    const auto& att = ref["attention"];
    QCOMPARE(block.layers, int(att.size()));
    QCOMPARE(block.heads, int(att[0].size()));
    QCOMPARE(block.queries, int(ids.size()));
    QCOMPARE(block.keys, int(ids.size()));
    double worstAttention = 0.0;
    for (int l = 0; l < block.layers; ++l)
        for (int h = 0; h < block.heads; ++h)
            for (int q = 0; q < block.queries; ++q)
                for (int k = 0; k < block.keys; ++k)
                    worstAttention = std::max(worstAttention, std::abs(double(block.at(l, h, q, k)) -
                                                                       att[l][h][q][k].get<double>()));
    qInfo("max |difference|: log-probabilities %.3g, attention %.3g", worstLogProb, worstAttention);
    QVERIFY2(worstLogProb < kTolerance, qPrintable(QString::number(worstLogProb)));
    QVERIFY2(worstAttention < kTolerance, qPrintable(QString::number(worstAttention)));
    worstLogProb_ = std::max(worstLogProb_, worstLogProb);
    worstAttention_ = std::max(worstAttention_, worstAttention);
}

void TestGpt2Checkpoint::configMapping_data() {
    QTest::addColumn<QString>("extra");
    QTest::addColumn<int>("dFf");
    QTest::addColumn<int>("activation");
    QTest::newRow("n_inner null") << R"("n_inner": null)" << 128 << int(core::Activation::GeluTanh);
    QTest::newRow("n_inner 80") << R"("n_inner": 80)" << 80 << int(core::Activation::GeluTanh);
    QTest::newRow("gelu_pytorch_tanh")
        << R"("activation_function": "gelu_pytorch_tanh")" << 128 << int(core::Activation::GeluTanh);
    QTest::newRow("gelu") << R"("activation_function": "gelu")" << 128 << int(core::Activation::Gelu);
    QTest::newRow("relu") << R"("activation_function": "relu")" << 128 << int(core::Activation::Relu);
    QTest::newRow("dropout and generation keys")
        << R"("resid_pdrop": 0.3, "use_cache": false, "bos_token_id": 7,
        "task_specific_params": {"text-generation": {"max_length": 50}}, "reorder_and_upcast_attn": true)"
        << 128 << int(core::Activation::GeluTanh);
}

void TestGpt2Checkpoint::configMapping() {
    QFETCH(QString, extra);
    QFETCH(int, dFf);
    QFETCH(int, activation);
    const auto text = R"({"model_type": "gpt2", "n_embd": 32, "n_layer": 3, "n_head": 4, "n_positions": 64,
        "vocab_size": 300, "layer_norm_epsilon": 1e-5, )" +
                      extra.toStdString() + "}";
    const auto c = core::gpt2Config(text, "/models/tiny-gpt2/config.json");
    QCOMPARE(c.architecture, core::Architecture::DecoderOnly);
    QCOMPARE(c.dModel, 32);
    QCOMPARE(c.decoderLayers, 3);
    QCOMPARE(c.heads, 4);
    QCOMPARE(c.dFf, dFf);
    QCOMPARE(c.maxLen, 64);
    QCOMPARE(c.tgtVocabSize, 300);
    QCOMPARE(c.normEps, 1e-5);
    QCOMPARE(int(c.activation), activation);
    QCOMPARE(c.positional, core::PositionalEncoding::Learned);
    QCOMPARE(c.layerNorm, core::LayerNormKind::Standard);
    QVERIFY(!c.scaleEmbeddings);
    QVERIFY(c.tieOutput);
    QCOMPARE(c.tokenizer, core::TokenizerKind::ByteBpe);
    QCOMPARE(c.tgtVocabFile, std::string("vocab.json"));
    QCOMPARE(c.mergesFile, std::string("merges.txt"));
    QCOMPARE(c.name, std::string("tiny-gpt2")); // no _name_or_path: the directory's name

    // GPT2Config's defaults fill in what a config leaves out; a hub id names the model, a local path's
    // last part does.
    const auto d = core::gpt2Config(R"({"model_type": "gpt2", "_name_or_path": "openai-community/gpt2"})");
    QCOMPARE(d.dModel, 768);
    QCOMPARE(d.decoderLayers, 12);
    QCOMPARE(d.heads, 12);
    QCOMPARE(d.dFf, 3072);
    QCOMPARE(d.maxLen, 1024);
    QCOMPARE(d.tgtVocabSize, 50257);
    QCOMPARE(d.name, std::string("openai-community/gpt2"));
    QCOMPARE(
        core::gpt2Config(R"({"n_embd": 8, "n_layer": 1, "n_head": 2, "_name_or_path": "/home/a/gpt2-x/"})")
            .name,
        std::string("gpt2-x"));
}

void TestGpt2Checkpoint::recognisesConfigs() {
    const auto format = [](const char* text) {
        return core::ModelDirectory::formatOf(nlohmann::json::parse(text), "config.json");
    };
    QCOMPARE(format(R"({"model_type": "gpt2"})"), core::ModelFormat::Gpt2);
    QCOMPARE(format(R"({"n_embd": 768, "n_layer": 12, "n_head": 12})"),
             core::ModelFormat::Gpt2); // the original release
    QCOMPARE(format(R"({"name": "m", "architecture": "decoder_only", "d_model": 32})"),
             core::ModelFormat::Attnscope);
    QCOMPARE(format(R"({"d_model": 32})"), core::ModelFormat::Attnscope);
    // Another Hugging Face model is named as such, even with GPT-2's keys beside its model_type.
    for (const auto* text :
         {R"({"model_type": "t5"})",
          R"({"model_type": "gpt_bigcode", "n_embd": 768, "n_layer": 12, "n_head": 12})"}) {
        try {
            format(text);
            QFAIL(text);
        } catch (const core::ModelError& e) {
            QVERIFY2(QString(e.what()).contains(QStringLiteral("a Hugging Face \"")), e.what());
        }
    }
}

void TestGpt2Checkpoint::refused_data() {
    QTest::addColumn<QString>("breakage");
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("fragment");
    QTest::newRow("missing tensor") << "rm h.1.mlp.c_fc.bias"
                                    << "model.safetensors"
                                    << "missing tensor 'h.1.mlp.c_fc.bias' (expected shape [128])";
    QTest::newRow("wrong shape") << "transpose h.0.attn.c_attn.weight"
                                 << "model.safetensors"
                                 << "tensor 'h.0.attn.c_attn.weight' has shape [96, 32] but config.json "
                                    "implies [32, 96]";
    QTest::newRow("unknown tensor") << "add h.0.attn.rotary.weight"
                                    << "model.safetensors"
                                    << "unexpected tensor 'h.0.attn.rotary.weight'";
    QTest::newRow("layer beyond n_layer") << "add h.2.ln_1.weight"
                                          << "model.safetensors"
                                          << "unexpected tensor 'h.2.ln_1.weight'";
    QTest::newRow("untied lm_head") << "untie lm_head.weight"
                                    << "model.safetensors"
                                    << "tensor 'lm_head.weight' differs from 'wte.weight'";
    QTest::newRow("inverse layer scaling") << R"({"scale_attn_by_inverse_layer_idx": true})"
                                           << "config.json"
                                           << "'scale_attn_by_inverse_layer_idx': true";
    QTest::newRow("unscaled attention") << R"({"scale_attn_weights": false})"
                                        << "config.json"
                                        << "'scale_attn_weights': false";
    QTest::newRow("cross-attention") << R"({"add_cross_attention": true})"
                                     << "config.json"
                                     << "'add_cross_attention': true";
    QTest::newRow("untied config") << R"({"tie_word_embeddings": false})"
                                   << "config.json"
                                   << "'tie_word_embeddings': false";
    QTest::newRow("activation") << R"({"activation_function": "mish"})"
                                << "config.json"
                                << "'activation_function' is \"mish\"";
    QTest::newRow("heads") << R"({"n_head": 5})"
                           << "config.json"
                           << "'n_embd' 32 is not divisible by 'n_head' 5";
    QTest::newRow("another model") << R"({"model_type": "t5"})"
                                   << "config.json"
                                   << "a Hugging Face \"t5\" model";
    QTest::newRow("vocabulary size") << R"({"vocab_size": 300})"
                                     << "vocab.json"
                                     << "config.json's vocab_size is 300";
}

void TestGpt2Checkpoint::refused() {
    QFETCH(QString, breakage);
    QFETCH(QString, file);
    QFETCH(QString, fragment);
    const fs::path d = tmp_.filePath(QStringLiteral("broken")).toStdString();
    breakCheckpoint(base_, d, breakage, 32,
                    [](SafetensorsEdit& t, const QString& verb, const std::string& name) {
                        if (verb == QStringLiteral("untie")) { // lm_head as wte with one value changed
                            auto wte = t.data[t.index("wte.weight")];
                            wte[7] += 0.5f;
                            t.add(name, t.shapes[t.index("wte.weight")], wte);
                        }
                    });
    expectRefused(d, fragment, file);
}

void TestGpt2Checkpoint::savesOurFormat() {
    const auto gpt2 = core::Model::load(base_, core::DeviceChoice::Cpu);
    const auto ours = tmp_.filePath(QStringLiteral("ours")).toStdString();
    gpt2->save(ours);
    const auto config = nlohmann::json::parse(core::readFile(ours + "/config.json"));
    QCOMPARE(core::ModelDirectory::formatOf(config, "config.json"), core::ModelFormat::Attnscope);
    const auto again = core::Model::load(ours, core::DeviceChoice::Cpu);
    QCOMPARE(again->config().toJson(), gpt2->config().toJson());
    const std::vector<int64_t> ids{263, 5, 260, 71, 258, 68};
    const auto a = core::analyze(*gpt2, {}, ids), b = core::analyze(*again, {}, ids);
    QCOMPARE(b.nextTokenLogProbs, a.nextTokenLogProbs);
    QCOMPARE(b.decoder.data, a.decoder.data);
    // The tokenizer came along: GPT-2's merges give " the" one token.
    const auto tokens = again->targetTokens(" the");
    QCOMPARE(tokens.size(), std::size_t(2));
    QCOMPARE(tokens[0].id, int64_t(263));
    QCOMPARE(tokens[1].id, int64_t(258));
}

void TestGpt2Checkpoint::commandLine() {
    QByteArray out, err;
    const auto model = QString::fromStdString(base_);
    QCOMPARE(run({QStringLiteral("dump"), QStringLiteral("--model"), model, QStringLiteral("--src-ids"),
                  QStringLiteral("263,5,260,71")},
                 &out, &err),
             0);
    const auto j = json::parse(out.toStdString());
    QCOMPARE(j["model"].get<std::string>(), std::string("tiny-gpt2-reference"));
    QCOMPARE(j["attention"]["decoder"].size(), std::size_t(2));
    QCOMPARE(j["next_token_logprobs"].size(), std::size_t(264));
    const auto converted = tmp_.filePath(QStringLiteral("converted"));
    QCOMPARE(run({QStringLiteral("convert"), QStringLiteral("--model"), model, QStringLiteral("--out"),
                  converted, QStringLiteral("--dtype"), QStringLiteral("f32")},
                 &out, &err),
             0);
    QVERIFY2(QFileInfo::exists(converted + QStringLiteral("/merges.txt")), err.constData());
}

void TestGpt2Checkpoint::cleanupTestCase() {
    if (worstLogProb_ > 0.0 || worstAttention_ > 0.0)
        qInfo("worst over all checkpoints: log-probabilities %.3g, attention %.3g", worstLogProb_,
              worstAttention_);
}

ATTNSCOPE_GUILESS_MAIN(TestGpt2Checkpoint)
#include "test_gpt2checkpoint.moc"
