// A Hugging Face BERT, RoBERTa or DistilBERT directory loads as it is: the config classes' keys map to our
// encoder-only config, the transformers tensor names to our weights, and the outputs match a network
// written from the family's published design (tests/reference/bert_reference.py): every encoder attention
// weight and the masked-LM head's distribution at every row within 1e-4. A typed text is framed as the
// tokenizer.json's template says ([CLS] … [SEP]); the run decodes nothing, and its answer is the head's
// distribution at the first [MASK]. What we don't implement is refused by name.

#include "tests/support/CheckpointEdit.h"
#include "tests/support/CliRunner.h"
#include "tests/support/ReferenceCompare.h"
#include "tests/support/ReferencePython.h"
#include "tests/support/SkipReport.h"

#include "core/analysis/AblationEffects.h"
#include "core/base/Errors.h"
#include "core/model/BertCheckpoint.h"
#include "core/model/Model.h"
#include "core/model/ModelParts.h"
#include "core/run/Analyze.h"
#include "core/run/Session.h"

#include <QtTest>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <cmath>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// The issue's bound is 1e-4; float32 against float64 differs by far less, so a regression shows before it.
constexpr double kTolerance = 2e-5;

// Every row's masked-LM distribution, straight from the encoder and the head.
std::vector<std::vector<float>> everyRow(const core::Model& model, const std::vector<int64_t>& ids) {
    const auto& m = core::parts(model);
    torch::NoGradGuard noGrad;
    const auto src = m.toTensor(ids);
    const auto memory = m.encode(src, core::nn::sourceMask(src, m.srcPad()), nullptr); // (1, S, C)
    const auto logp = m.logProbs(memory)[0].contiguous();                              // (S, V)
    std::vector<std::vector<float>> out;
    for (int64_t r = 0; r < logp.size(0); ++r)
        out.emplace_back(logp[r].data_ptr<float>(), logp[r].data_ptr<float>() + logp.size(1));
    return out;
}

} // namespace

class TestBertCheckpoint : public QObject, public CliRunner {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void matchesReference_data();
    void matchesReference();
    void configMapping();
    void refused_data();
    void refused();
    void typedTextWithMask();
    void vocabTxt();
    void commandLine();
    void cleanupTestCase();

private:
    bool makeCheckpoint(const QString& dir, const QStringList& args, QString* why) {
        return runReferenceScript(QStringList{QStringLiteral("bert_reference.py"), dir} + args, why);
    }
    std::string base_; // BERT with its masked-LM head
    double worstLogProb_ = 0.0, worstAttention_ = 0.0;
};

void TestBertCheckpoint::initTestCase() {
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

void TestBertCheckpoint::matchesReference_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<bool>("head");
    const auto a = [](const char* text) { return QString::fromLatin1(text).split(QLatin1Char(' ')); };
    QTest::newRow("BertForMaskedLM") << QStringList{} << true;
    QTest::newRow("BertModel with its pooler, no head") << a("--no-head") << false;
    QTest::newRow("bare names, gamma and beta") << a("--no-prefix --gamma-beta") << true;
    QTest::newRow("decoder weight saved, BF16") << a("--decoder-weight --dtype BF16") << true;
    QTest::newRow("F16") << a("--dtype F16") << true;
    QTest::newRow("RobertaForMaskedLM, positions after the padding id") << a("--type roberta") << true;
    QTest::newRow("RobertaForMaskedLM, decoder weight saved") << a("--type roberta --decoder-weight") << true;
    QTest::newRow("DistilBertForMaskedLM") << a("--type distilbert") << true;
    QTest::newRow("DistilBertModel") << a("--type distilbert --no-head") << false;
}

void TestBertCheckpoint::matchesReference() {
    QFETCH(QStringList, args);
    QFETCH(bool, head);
    const auto dir = tmp_.filePath(QStringLiteral("ref-") +
                                   QString::number(qHash(QString::fromLatin1(QTest::currentDataTag()))));
    QString why;
    QVERIFY2(makeCheckpoint(dir, args, &why), qPrintable(why));
    const auto ref = readJson(fs::path(dir.toStdString()) / "reference.json");
    const auto model = core::Model::load(dir.toStdString(), core::DeviceChoice::Cpu);
    const auto& c = model->config();
    QCOMPARE(c.architecture, core::Architecture::EncoderOnly);
    QVERIFY(c.postNorm && c.embeddingNorm);
    QCOMPARE(c.maskedLmHead, head);
    const auto ids = ref["ids"].get<std::vector<int64_t>>();

    const auto snap = core::analyze(*model, ids, {});
    QVERIFY(!snap.decodes);
    QCOMPARE(snap.encoder.heads, 4);
    QCOMPARE(snap.encoder.queries, int(ids.size()));
    QVERIFY(snap.decoder.empty() && snap.cross.empty());
    double worstAtt = worstAttention(snap.encoder, ref["attention"]);
    double worstLogProb = 0.0;
    if (head) {
        const auto rows = everyRow(*model, ids);
        for (std::size_t r = 0; r < ids.size(); ++r)
            worstLogProb = std::max(worstLogProb, worstRow(rows[r], ref["logprobs"][r]));
        // The run's answer is the head's distribution at the first mask.
        QCOMPARE(snap.maskRow, ref["mask"].get<int>());
        QVERIFY(snap.maskRow > 0);
        worstLogProb =
            std::max(worstLogProb, worstRow(snap.nextTokenLogProbs, ref["logprobs"][snap.maskRow]));
    } else {
        QCOMPARE(snap.maskRow, -1);
        QVERIFY(snap.nextTokenLogProbs.empty());
    }
    // Through a Session, as the window runs it.
    core::Session session(model);
    session.analyzeIds(ids, {});
    const auto run = session.snapshot();
    worstAtt = std::max(worstAtt, worstAttention(run.encoder, ref["attention"]));
    QCOMPARE(run.maskRow, snap.maskRow);
    QVERIFY(run.tgtTokens.empty());

    qInfo("max |difference|: log-probabilities %.3g, attention %.3g", worstLogProb, worstAtt);
    QVERIFY2(worstLogProb < kTolerance, qPrintable(QString::number(worstLogProb)));
    QVERIFY2(worstAtt < kTolerance, qPrintable(QString::number(worstAtt)));
    worstLogProb_ = std::max(worstLogProb_, worstLogProb);
    worstAttention_ = std::max(worstAttention_, worstAtt);
}

void TestBertCheckpoint::configMapping() {
    // bert-base-uncased's own config.json.
    const auto base = core::bertConfigFromParsed(json::parse(R"({
        "architectures": ["BertForMaskedLM"], "attention_probs_dropout_prob": 0.1, "gradient_checkpointing": false,
        "hidden_act": "gelu", "hidden_dropout_prob": 0.1, "hidden_size": 768, "initializer_range": 0.02,
        "intermediate_size": 3072, "layer_norm_eps": 1e-12, "max_position_embeddings": 512, "model_type": "bert",
        "num_attention_heads": 12, "num_hidden_layers": 12, "pad_token_id": 0,
        "position_embedding_type": "absolute", "transformers_version": "4.6.0.dev0", "type_vocab_size": 2,
        "use_cache": true, "vocab_size": 30522})"),
                                                 "/m/bert-base-uncased/config.json");
    QCOMPARE(base.name, std::string("bert-base-uncased"));
    QCOMPARE(base.encoderLayers, 12);
    QCOMPARE(base.heads, 12);
    QCOMPARE(base.dFf, 3072);
    QCOMPARE(base.maxLen, 512);
    QCOMPARE(base.activation, core::Activation::Gelu);
    QCOMPARE(base.normEps, 1e-12);
    QVERIFY(base.tieOutput && base.tiedOutputBias && !base.scaleEmbeddings);
    QVERIFY(!base.hasDecoder() && base.hasEncoder() && !base.twoSided());
    auto withHead = base;
    withHead.maskedLmHead = true;
    // The modules' own arithmetic: word and position tables and their norm (the token types are not kept:
    // type 0 is folded into the positions), 12 layers, and the head's dense map, norm and output bias.
    const int64_t embeddings = 30522 * 768 + 512 * 768 + 2 * 768;
    const int64_t layer = 4 * (768 * 768 + 768) + 2 * 3072 * 768 + 3072 + 768 + 4 * 768;
    const int64_t headParams = 768 * 768 + 768 + 2 * 768 + 30522;
    QCOMPARE(withHead.parameterCount(), embeddings + 12 * layer + headParams);
    // BertForMaskedLM's 109,514,298, less the two token-type rows (the first is folded into the positions).
    QCOMPARE(withHead.parameterCount(), int64_t{109514298} - 2 * 768);
    QCOMPARE(base.parameterCount(), embeddings + 12 * layer);
    QCOMPARE(base.shape(), std::string("encoder-only, 12 layers, d_model 768, 12 heads"));
    // Our config.json writes it and reads it back.
    const auto again = core::ModelConfig::fromJson(withHead.toJson());
    QCOMPARE(again.architecture, core::Architecture::EncoderOnly);
    QVERIFY(again.postNorm && again.embeddingNorm && again.maskedLmHead && again.tiedOutputBias);
    QCOMPARE(again.decoderLayers, 0);
    // An encoder-only config.json that names decoder layers says more than the model has.
    auto withDecoder = json::parse(withHead.toJson());
    withDecoder["decoder_layers"] = 2;
    QVERIFY_THROWS_EXCEPTION(core::ConfigError, core::ModelConfig::fromJson(withDecoder.dump()));

    // roberta-base's: 514 positions, the first two before the padding id's.
    const auto roberta = core::bertConfigFromParsed(json::parse(R"({"model_type": "roberta",
        "max_position_embeddings": 514, "pad_token_id": 1, "type_vocab_size": 1, "vocab_size": 50265,
        "layer_norm_eps": 1e-05})"),
                                                    "config.json");
    QCOMPARE(roberta.maxLen, 512);
    QCOMPARE(roberta.normEps, 1e-5);
    // distilbert-base-uncased's keys.
    const auto distil = core::bertConfigFromParsed(json::parse(R"({"model_type": "distilbert", "dim": 768,
        "n_layers": 6, "n_heads": 12, "hidden_dim": 3072, "activation": "gelu", "max_position_embeddings": 512,
        "vocab_size": 30522})"),
                                                   "config.json");
    QCOMPARE(distil.encoderLayers, 6);
    QCOMPARE(distil.dFf, 3072);
}

void TestBertCheckpoint::refused_data() {
    QTest::addColumn<QString>("breakage");
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("fragment");
    QTest::newRow("missing tensor") << "rm bert.encoder.layer.1.output.dense.bias"
                                    << "model.safetensors"
                                    << "missing tensor 'bert.encoder.layer.1.output.dense.bias' (expected "
                                       "shape [32])";
    QTest::newRow("wrong shape")
        << "transpose bert.encoder.layer.0.intermediate.dense.weight"
        << "model.safetensors"
        << "tensor 'bert.encoder.layer.0.intermediate.dense.weight' has shape [32, 48] "
           "but config.json implies [48, 32]";
    QTest::newRow("unknown tensor") << "add bert.encoder.layer.0.attention.self.distance_embedding.weight"
                                    << "model.safetensors"
                                    << "unexpected tensor 'bert.encoder.layer.0.attention.self.distance_"
                                       "embedding.weight' (not part of a BERT model";
    QTest::newRow("untied decoder") << "untie cls.predictions.decoder.weight"
                                    << "model.safetensors"
                                    << "'cls.predictions.decoder.weight' differs from the word embeddings";
    QTest::newRow("relative positions") << R"({"position_embedding_type": "relative_key"})"
                                        << "config.json"
                                        << "'position_embedding_type' is \"relative_key\"";
    QTest::newRow("decoder") << R"({"is_decoder": true})"
                             << "config.json"
                             << "'is_decoder': true (a causal decoder) is not supported";
    QTest::newRow("activation") << R"({"hidden_act": "mish"})"
                                << "config.json"
                                << "'hidden_act' is \"mish\"";
    QTest::newRow("vocabulary size") << R"({"vocab_size": 30})"
                                     << "tokenizer.json"
                                     << "vocab_size is 30";
}

void TestBertCheckpoint::refused() {
    QFETCH(QString, breakage);
    QFETCH(QString, file);
    QFETCH(QString, fragment);
    const fs::path d = tmp_.filePath(QStringLiteral("broken")).toStdString();
    breakCheckpoint(
        base_, d, breakage, 32, [](SafetensorsEdit& t, const QString& verb, const std::string& name) {
            if (verb == QStringLiteral("untie")) { // a decoder weight of its own, unlike the token table
                const auto& table = t.data[t.index("bert.embeddings.word_embeddings.weight")];
                auto other = table;
                other[0] += 1.0f;
                t.add(name, t.shapes[t.index("bert.embeddings.word_embeddings.weight")], other);
            }
        });
    expectRefused(d, fragment, file);
}

void TestBertCheckpoint::typedTextWithMask() {
    const auto model = core::Model::load(base_, core::DeviceChoice::Cpu);
    core::Session session(model);
    session.analyze("The cat [MASK] on the mat.");
    const auto snap = session.snapshot();
    // [CLS] the cat [MASK] on the mat . [SEP]: lowercased by the normalizer, the mask typed as itself.
    QCOMPARE(snap.srcTokens.size(), std::size_t(9));
    QCOMPARE(snap.srcTokens.front().text, std::string("[CLS]"));
    QCOMPARE(snap.srcTokens.back().text, std::string("[SEP]"));
    QCOMPARE(snap.srcTokens[3].text, std::string("[MASK]"));
    QCOMPARE(snap.maskRow, 3);
    QVERIFY(!snap.decodes && snap.tgtTokens.empty());
    QCOMPARE(int(snap.nextTokenLogProbs.size()), model->config().srcVocabSize);
    // The same as the ids given directly.
    std::vector<int64_t> ids;
    for (const auto& t : snap.srcTokens)
        ids.push_back(t.id);
    QCOMPARE(core::analyze(*model, ids, {}).nextTokenLogProbs, snap.nextTokenLogProbs);
    // Nothing to step: the run is finished as it starts, and a forced token is refused by name.
    QVERIFY(session.finished());
    QCOMPARE(session.step(), int64_t(-1));
    try {
        session.force(5);
        QFAIL("an encoder-only model took a target token");
    } catch (const core::InputError& e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("decodes nothing")), e.what());
    }
    // The inside of a post-norm layer: x is the residual itself, and the recomputed weights are the
    // captured ones; decoder kinds are out of range.
    for (int layer = 0; layer < 2; ++layer) {
        const auto row = session.inside({core::AttentionKind::Encoder, layer, 1, 3});
        QVERIFY(row.postNorm);
        for (std::size_t j = 0; j < row.weights.size(); ++j)
            QVERIFY(std::abs(row.weights[j] - row.captured[j]) < 1e-5f);
        for (int d = 0; d < row.x.cols; ++d)
            QCOMPARE(row.x.at(3, d), row.residual[std::size_t(d)]);
    }
    QVERIFY_THROWS_EXCEPTION(core::InputError, session.inside({core::AttentionKind::Decoder, 0, 0, 0}));
    QVERIFY(!snap.encoderNorms.empty());
    // Heads switched off change the answer at the mask, and the effect is measured against the full model.
    core::HeadAblation off;
    core::addAblation(off, "0:1,1:2", core::AttentionKind::Encoder, model->config());
    session.setAblation(off);
    const auto effect = core::nextTokenEffect(session);
    QVERIFY(effect.kl > 0.0);
    QVERIFY(!effect.changes.empty());
    QVERIFY(session.snapshot().nextTokenLogProbs != snap.nextTokenLogProbs);
    session.setAblation({});
    // A text without a mask has no answer to show.
    session.analyze("the dog ran");
    QCOMPARE(session.snapshot().maskRow, -1);
    QVERIFY(session.snapshot().nextTokenLogProbs.empty());
    session.setAblation(off); // nothing to compare, and nothing fails
    QCOMPARE(core::nextTokenEffect(session).kl, 0.0);
}

void TestBertCheckpoint::vocabTxt() {
    // An older folder's vocab.txt reads as the tokenizer.json BertTokenizerFast makes of it: the same tokens.
    const auto dir = tmp_.filePath(QStringLiteral("vocab-txt"));
    QString why;
    QVERIFY2(makeCheckpoint(dir, {QStringLiteral("--vocab-txt")}, &why), qPrintable(why));
    QVERIFY(!QFileInfo::exists(dir + QStringLiteral("/tokenizer.json")));
    const auto fromTxt = core::Model::load(dir.toStdString(), core::DeviceChoice::Cpu);
    const auto fromJson = core::Model::load(base_, core::DeviceChoice::Cpu);
    for (const char* text : {"The cat [MASK] on the mat.", "Big red dogs ran", "qux Sat,on"}) {
        const auto a = fromTxt->sourceTokens(text), b = fromJson->sourceTokens(text);
        QCOMPARE(a.size(), b.size());
        for (std::size_t i = 0; i < a.size(); ++i) {
            QCOMPARE(a[i].id, b[i].id);
            QCOMPARE(a[i].text, b[i].text);
        }
    }
    // Saved in our format, the tokenizer is written as the tokenizer.json it stands for, and reads back.
    const auto ours = tmp_.filePath(QStringLiteral("vocab-txt-ours")).toStdString();
    fromTxt->save(ours);
    QVERIFY(QFileInfo::exists(QString::fromStdString(ours + "/tokenizer.json")));
    const auto again = core::Model::load(ours, core::DeviceChoice::Cpu);
    QCOMPARE(again->config().architecture, core::Architecture::EncoderOnly);
    const std::vector<int64_t> ids{2, 57, 58, 4, 60, 3};
    QCOMPARE(core::analyze(*again, ids, {}).nextTokenLogProbs,
             core::analyze(*fromTxt, ids, {}).nextTokenLogProbs);
}

void TestBertCheckpoint::commandLine() {
    QByteArray out, err;
    const auto model = QString::fromStdString(base_);
    QCOMPARE(run({QStringLiteral("dump"), QStringLiteral("--model"), model, QStringLiteral("--src"),
                  QStringLiteral("the cat [MASK] on the mat")},
                 &out, &err),
             0);
    const auto j = json::parse(out.toStdString());
    QCOMPARE(j["model"].get<std::string>(), std::string("tiny-bert-reference"));
    QVERIFY(!j["decodes"].get<bool>());
    QCOMPARE(j["mask_row"].get<int>(), 3);
    QCOMPARE(j["mask_top"].size(), std::size_t(10));
    QVERIFY(j["mask_top"][0]["probability"].get<double>() >= j["mask_top"][1]["probability"].get<double>());
    QCOMPARE(j["attention"]["encoder"].size(), std::size_t(2));
    QVERIFY(!j["attention"].contains("decoder"));
    QCOMPARE(run({QStringLiteral("explain"), QStringLiteral("--model"), model, QStringLiteral("--src"),
                  QStringLiteral("the cat [MASK]"), QStringLiteral("--kind"), QStringLiteral("encoder"),
                  QStringLiteral("--layer"), QStringLiteral("1"), QStringLiteral("--head"),
                  QStringLiteral("2"), QStringLiteral("--row"), QStringLiteral("3")},
                 &out, &err),
             0);
    const auto explained = json::parse(out.toStdString());
    QVERIFY(explained["post_norm"].get<bool>());
    QVERIFY(explained["sampling"].is_null()); // nothing is decoded, so nothing is drawn
    // Heads switched off from the command line are the encoder's by default.
    QCOMPARE(run({QStringLiteral("dump"), QStringLiteral("--model"), model, QStringLiteral("--src"),
                  QStringLiteral("the cat [MASK]"), QStringLiteral("--ablate"), QStringLiteral("1:0,1:3")},
                 &out, &err),
             0);
    QCOMPARE(json::parse(out.toStdString())["ablated"].get<std::string>(),
             std::string("encoder 1:0, encoder 1:3"));
    QCOMPARE(run({QStringLiteral("dump"), QStringLiteral("--model"), model, QStringLiteral("--src"),
                  QStringLiteral("the cat"), QStringLiteral("--greedy"), QStringLiteral("3")},
                 &out, &err),
             2);
    QVERIFY2(err.contains("decodes nothing"), err.constData());
}

void TestBertCheckpoint::cleanupTestCase() {
    if (worstLogProb_ > 0.0 || worstAttention_ > 0.0)
        qInfo("worst over all checkpoints: log-probabilities %.3g, attention %.3g", worstLogProb_,
              worstAttention_);
}

ATTNSCOPE_GUILESS_MAIN(TestBertCheckpoint)
#include "test_bertcheckpoint.moc"
