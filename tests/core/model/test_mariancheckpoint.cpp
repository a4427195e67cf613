// A Hugging Face Marian directory (the opus-mt translation models' files: MarianConfig's config.json,
// MarianMTModel's tensor names, source.spm, target.spm and vocab.json) loads as it is and computes what a
// network written from Marian's published design computes (tests/reference/marian_reference.py): every
// encoder, decoder and cross-attention weight and the log-probabilities at every target row within 1e-4,
// and greedy decoding from <pad> picks the same tokens. The tokenizer numbers text as MarianTokenizer does
// (the reference runs Python's SentencePiece on the same models). What we don't implement is refused by
// name.

#include "tests/support/CheckpointEdit.h"
#include "tests/support/CliRunner.h"
#include "tests/support/ReferenceCompare.h"
#include "tests/support/ReferencePython.h"
#include "tests/support/SkipReport.h"

#include "core/base/Errors.h"
#include "core/model/MarianCheckpoint.h"
#include "core/model/Model.h"
#include "core/model/ModelParts.h"
#include "core/model/nn/PositionalTable.h"
#include "core/run/Analyze.h"
#include "core/run/Session.h"

#include <QtTest>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <cmath>
#include <filesystem>

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// The issue's bound is 1e-4; float32 against float64 differs by far less, so a regression shows before it.
constexpr double kTolerance = 2e-5;

// Every target row's distribution, teacher-forced, straight from the network.
std::vector<std::vector<float>> everyRow(const core::Model& model, const std::vector<int64_t>& src,
                                         const std::vector<int64_t>& tgt) {
    const auto& m = core::parts(model);
    torch::NoGradGuard noGrad;
    const auto s = m.toTensor(src), t = m.toTensor(tgt);
    const auto srcMask = core::nn::sourceMask(s, m.srcPad());
    const auto memory = m.encode(s, srcMask, nullptr); // (1, S, C)
    const auto h =
        m.decode(t, memory, srcMask, core::nn::targetMask(t, m.pad()), 0, nullptr, nullptr); // (1, T, C)
    const auto logp = m.logProbs(h)[0].contiguous();                                         // (T, V)
    std::vector<std::vector<float>> out;
    for (int64_t r = 0; r < logp.size(0); ++r)
        out.emplace_back(logp[r].data_ptr<float>(), logp[r].data_ptr<float>() + logp.size(1));
    return out;
}

// max |got − want| over a row but the banned columns, which must be kBanned's (generate's −∞).
double worstRowBut(const std::vector<float>& got, const json& want, const std::vector<int64_t>& banned) {
    if (got.size() != want.size())
        return INFINITY;
    double worst = 0.0;
    for (std::size_t v = 0; v < got.size(); ++v) {
        if (std::find(banned.begin(), banned.end(), int64_t(v)) != banned.end())
            worst = std::max(worst, got[v] < -1e4f ? 0.0 : INFINITY);
        else
            worst = std::max(worst, std::abs(double(got[v]) - want[v].get<double>()));
    }
    return worst;
}

std::vector<int64_t> idsOf(const std::vector<core::Token>& tokens) {
    std::vector<int64_t> ids;
    for (const auto& t : tokens)
        ids.push_back(t.id);
    return ids;
}

} // namespace

class TestMarianCheckpoint : public QObject, public CliRunner {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void matchesReference_data();
    void matchesReference();
    void tokenizer();
    void halvesTable();
    void configMapping();
    void refused_data();
    void refused();
    void savedInOurFormat();
    void commandLine();
    void cleanupTestCase();

private:
    bool makeCheckpoint(const QString& dir, const QStringList& args, QString* why) {
        return runReferenceScript(QStringList{QStringLiteral("marian_reference.py"), dir} + args, why);
    }
    std::string base_; // MarianMTModel, tied, every table saved
    double worstLogProb_ = 0.0, worstAttention_ = 0.0;
};

void TestMarianCheckpoint::initTestCase() {
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

void TestMarianCheckpoint::matchesReference_data() {
    QTest::addColumn<QStringList>("args");
    const auto a = [](const char* text) { return QString::fromLatin1(text).split(QLatin1Char(' ')); };
    QTest::newRow("MarianMTModel, every tied name saved") << QStringList{};
    QTest::newRow("one table and no positions saved (the formula's)") << a("--dedup --no-positions");
    QTest::newRow("an lm_head of its own, F16") << a("--untied --dtype F16");
    QTest::newRow("MarianModel: bare names, no bias, BF16") << a("--bare --dtype BF16");
    QTest::newRow("gelu, embeddings unscaled") << a("--activation gelu --no-scale");
}

void TestMarianCheckpoint::matchesReference() {
    QFETCH(QStringList, args);
    const auto dir = tmp_.filePath(QStringLiteral("ref-") +
                                   QString::number(qHash(QString::fromLatin1(QTest::currentDataTag()))));
    QString why;
    QVERIFY2(makeCheckpoint(dir, args, &why), qPrintable(why));
    const auto ref = readJson(fs::path(dir.toStdString()) / "reference.json");
    const auto model = core::Model::load(dir.toStdString(), core::DeviceChoice::Cpu);
    const auto& c = model->config();
    QCOMPARE(c.architecture, core::Architecture::EncoderDecoder);
    QVERIFY(c.postNorm && c.sinusoidHalves && c.shareEmbeddings);
    const auto src = ref["src_ids"].get<std::vector<int64_t>>();
    const auto tgt = ref["tgt_ids"].get<std::vector<int64_t>>();

    // The typed source is numbered as MarianTokenizer numbers it, </s> at its end and nothing before.
    QCOMPARE(idsOf(model->sourceTokens(ref["src_text"].get<std::string>())), src);

    const auto snap = core::analyze(*model, src, tgt);
    QVERIFY(snap.decodes);
    QCOMPARE(snap.encoder.heads, 4);
    double worstAtt =
        std::max({worstAttention(snap.encoder, ref["encoder"]), worstAttention(snap.decoder, ref["decoder"]),
                  worstAttention(snap.cross, ref["cross"])});
    const auto rows = everyRow(*model, src, tgt);
    const auto banned = ref["banned"].get<std::vector<int64_t>>();
    QCOMPARE(banned, std::vector<int64_t>{model->targetTokenizer().vocab().pad()}); // opus-mt's: <pad>
    double worstLogProb = 0.0;
    for (std::size_t r = 0; r < tgt.size(); ++r)
        worstLogProb = std::max(worstLogProb, worstRowBut(rows[r], ref["logprobs"][r], banned));
    worstLogProb =
        std::max(worstLogProb, worstRowBut(snap.nextTokenLogProbs, ref["logprobs"][tgt.size() - 1], banned));

    // Greedy decoding through a Session, as the window steps: from <pad>, the KV cache's path.
    core::Session session(model);
    session.analyzeIds(src, {});
    QCOMPARE(session.snapshot().tgtTokens.front().text, std::string("<pad>"));
    std::vector<int64_t> greedy;
    const auto want = ref["greedy"].get<std::vector<int64_t>>();
    while (greedy.size() < want.size()) {
        const auto id = session.step();
        if (id < 0)
            break;
        greedy.push_back(id);
    }
    QCOMPARE(greedy, want);
    // The cached steps' attention is the teacher-forced pass's over the same target.
    auto decoded = std::vector<int64_t>{tgt.front()};
    decoded.insert(decoded.end(), greedy.begin(), greedy.end() - (session.finished() ? 1 : 0));
    const auto forced = core::analyze(*model, src, decoded);
    const auto stepped = session.snapshot();
    QCOMPARE(stepped.decoder.queries, forced.decoder.queries);
    for (std::size_t i = 0; i < forced.decoder.data.size(); ++i)
        worstAtt = std::max(worstAtt, double(std::abs(forced.decoder.data[i] - stepped.decoder.data[i])));

    qInfo("max |difference|: log-probabilities %.3g, attention %.3g; greedy %zu tokens", worstLogProb,
          worstAtt, greedy.size());
    QVERIFY2(worstLogProb < kTolerance, qPrintable(QString::number(worstLogProb)));
    QVERIFY2(worstAtt < kTolerance, qPrintable(QString::number(worstAtt)));
    worstLogProb_ = std::max(worstLogProb_, worstLogProb);
    worstAttention_ = std::max(worstAttention_, worstAtt);
}

void TestMarianCheckpoint::tokenizer() {
    const auto ref = readJson(fs::path(base_) / "reference.json");
    const auto model = core::Model::load(base_, core::DeviceChoice::Cpu);
    // Python's SentencePiece on source.spm, looked up in vocab.json, as MarianTokenizer does.
    for (const auto& t : ref["tokenize"]) {
        const auto text = t["text"].get<std::string>();
        const auto tokens = model->sourceTokens(text);
        QVERIFY2(idsOf(tokens) == t["ids"].get<std::vector<int64_t>>(), text.c_str());
        QCOMPARE(tokens.back().text, std::string("</s>"));
        QVERIFY(tokens.back().special);
    }
    // A piece vocab.json lacks is <unk>, shown as what was typed; the language code is one token.
    const auto unknown = model->sourceTokens("日本");
    QVERIFY(std::any_of(unknown.begin(), unknown.end(), [](const core::Token& t) { return t.unknown; }));
    const auto coded = model->sourceTokens(">>spa<< The cat");
    QCOMPARE(coded.front().text, std::string(">>spa<<"));
    QVERIFY(!coded.front().unknown);
    // Target ids joined by target.spm, specials left out, as MarianTokenizer.decode does.
    for (const auto& d : ref["detokenize"])
        QCOMPARE(model->targetTokenizer().detokenize(d["ids"].get<std::vector<int64_t>>()),
                 d["text"].get<std::string>());
    // The decoder starts at <pad>, which is then no padding to mask on either side (a typed source never
    // holds it, and batches are masked by length).
    const auto& v = model->targetTokenizer().vocab();
    QCOMPARE(v.bos(), v.pad());
    QCOMPARE(v.eos(), int64_t(0));
    QCOMPARE(core::parts(*model).pad(), int64_t(-1));
    QCOMPARE(core::parts(*model).srcPad(), int64_t(-1));
    QCOMPARE(idsOf(model->targetTokens("")), std::vector<int64_t>{v.pad()});
}

void TestMarianCheckpoint::halvesTable() {
    // transformers' layout: column i holds sin(pos / 10000^(2i/C)), column C/2 + i the cosine of the same.
    const int64_t P = 50, C = 16;
    const auto halves = core::nn::sinusoidalTable(P, C, true), pairs = core::nn::sinusoidalTable(P, C);
    for (int64_t pos : {0, 1, 7, 49})
        for (int64_t i = 0; i < C / 2; ++i) {
            const double angle = double(pos) / std::pow(10000.0, 2.0 * double(i) / double(C));
            QVERIFY(std::abs(halves[pos][i].item<float>() - std::sin(angle)) < 1e-6);
            QVERIFY(std::abs(halves[pos][C / 2 + i].item<float>() - std::cos(angle)) < 1e-6);
            // The same values as the interleaved table, moved.
            QCOMPARE(halves[pos][i].item<float>(), pairs[pos][2 * i].item<float>());
            QCOMPARE(halves[pos][C / 2 + i].item<float>(), pairs[pos][2 * i + 1].item<float>());
        }
    // Past the stored table (a run past max_len) the rows come from the same formula and layout.
    core::nn::PositionalTable table(core::PositionalEncoding::Sinusoidal, 8, C, true);
    torch::NoGradGuard noGrad;
    const auto x = torch::zeros({1, 3, C});
    QVERIFY(torch::allclose(table->forward(x, 10)[0], halves.narrow(0, 10, 3), 0.0, 1e-6));
    // The positional views get a loaded model's stored table with its columns in pairs: the interleaved one.
    const auto model = core::Model::load(base_, core::DeviceChoice::Cpu);
    const auto shown = model->positionalTable(true);
    const auto& c = model->config();
    const auto want = core::nn::sinusoidalTable(c.maxLen, c.dModel).contiguous();
    QCOMPARE(shown.size(), std::size_t(want.numel()));
    float worst = 0.0f;
    for (std::size_t k = 0; k < shown.size(); ++k)
        worst = std::max(worst, std::abs(shown[k] - want.data_ptr<float>()[k]));
    QVERIFY2(worst < 1e-6f, qPrintable(QString::number(double(worst))));
}

void TestMarianCheckpoint::configMapping() {
    // Helsinki-NLP/opus-mt-en-de's config.json, its keys as the hub holds them.
    const auto c = core::marianConfigFromParsed(json::parse(R"({
        "_name_or_path": "Helsinki-NLP/opus-mt-en-de", "activation_dropout": 0.0, "activation_function": "swish",
        "add_bias_logits": false, "add_final_layer_norm": false, "architectures": ["MarianMTModel"],
        "attention_dropout": 0.0, "bad_words_ids": [[58100]], "bos_token_id": 0, "classif_dropout": 0.0,
        "classifier_dropout": 0.0, "d_model": 512, "decoder_attention_heads": 8, "decoder_ffn_dim": 2048,
        "decoder_layerdrop": 0.0, "decoder_layers": 6, "decoder_start_token_id": 58100,
        "decoder_vocab_size": 58101, "dropout": 0.1, "encoder_attention_heads": 8, "encoder_ffn_dim": 2048,
        "encoder_layerdrop": 0.0, "encoder_layers": 6, "eos_token_id": 0, "forced_eos_token_id": 0,
        "init_std": 0.02, "is_encoder_decoder": true, "max_length": 512, "max_position_embeddings": 512,
        "model_type": "marian", "normalize_before": false, "normalize_embedding": false, "num_beams": 4,
        "num_hidden_layers": 6, "pad_token_id": 58100, "scale_embedding": true,
        "share_encoder_decoder_embeddings": true, "static_position_embeddings": true,
        "transformers_version": "4.22.0.dev0", "use_cache": true, "vocab_size": 58101})"),
                                                "/m/opus-mt-en-de/config.json");
    QCOMPARE(c.name, std::string("Helsinki-NLP/opus-mt-en-de"));
    QCOMPARE(c.encoderLayers, 6);
    QCOMPARE(c.decoderLayers, 6);
    QCOMPARE(c.heads, 8);
    QCOMPARE(c.dModel, 512);
    QCOMPARE(c.dFf, 2048);
    QCOMPARE(c.maxLen, 512);
    QCOMPARE(c.activation, core::Activation::Silu);
    QCOMPARE(c.normEps, 1e-5);
    QVERIFY(c.scaleEmbeddings && c.shareEmbeddings && c.tieOutput && c.tiedOutputBias && c.postNorm);
    QVERIFY(c.sinusoidHalves);
    // MarianMTModel's parameters: one 58101 × 512 table, 6 + 6 layers, final_logits_bias.
    const int64_t C = 512, F = 2048, V = 58101;
    const int64_t attention = 4 * (C * C + C), norm = 2 * C, ff = F * C + F + C * F + C;
    const int64_t encoderLayer = attention + norm + ff + norm;
    const int64_t decoderLayer = 2 * (attention + norm) + ff + norm;
    QCOMPARE(c.parameterCount(), V * C + 6 * encoderLayer + 6 * decoderLayer + V);
    // transformers counts opus-mt-en-de as 74,410,496: its two 512 × 512 sinusoid tables are parameters there
    // (buffers here) and final_logits_bias a buffer there (a parameter here).
    QCOMPARE(c.parameterCount(), int64_t{74410496} - 2 * 512 * 512 + V);
    // Our config.json writes it and reads it back.
    const auto again = core::ModelConfig::fromJson(c.toJson());
    QVERIFY(again.sinusoidHalves && again.postNorm && again.tiedOutputBias);
    QCOMPARE(again.tokenizer, core::TokenizerKind::Marian);
    QCOMPARE(again.srcVocabFile, std::string("source.spm"));
}

void TestMarianCheckpoint::refused_data() {
    QTest::addColumn<QString>("breakage");
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("fragment");
    QTest::newRow("missing tensor") << "rm model.decoder.layers.1.encoder_attn.k_proj.bias"
                                    << "model.safetensors"
                                    << "missing tensor 'model.decoder.layers.1.encoder_attn.k_proj.bias' "
                                       "(expected shape [32])";
    QTest::newRow("wrong shape") << "transpose model.encoder.layers.0.fc1.weight"
                                 << "model.safetensors"
                                 << "tensor 'model.encoder.layers.0.fc1.weight' has shape [32, 48] but "
                                    "config.json implies [48, 32]";
    QTest::newRow("unknown tensor") << "add model.encoder.layernorm_embedding.weight"
                                    << "model.safetensors"
                                    << "unexpected tensor 'model.encoder.layernorm_embedding.weight'";
    QTest::newRow("tables that differ") << "untie model.decoder.embed_tokens.weight"
                                        << "model.safetensors"
                                        << "'model.decoder.embed_tokens.weight' differs from "
                                           "'model.shared.weight'";
    QTest::newRow("heads differ") << R"({"decoder_attention_heads": 2})"
                                  << "config.json"
                                  << "'encoder_attention_heads' is 4 but 'decoder_attention_heads' is 2";
    QTest::newRow("separate vocabularies") << R"({"share_encoder_decoder_embeddings": false})"
                                           << "config.json"
                                           << "separate source and target vocabularies";
    QTest::newRow("decoder start") << R"({"decoder_start_token_id": 3})"
                                   << "config.json"
                                   << "'decoder_start_token_id' is 3 but vocab.json gives <pad> the id";
    QTest::newRow("activation") << R"({"activation_function": "mish"})"
                                << "config.json"
                                << "'activation_function' is \"mish\"";
    QTest::newRow("vocabulary size")
        << R"({"vocab_size": 30, "decoder_vocab_size": 30, "bad_words_ids": [[29]]})"
        << "vocab.json"
        << "vocab_size is 30";
    QTest::newRow("no vocab.json") << "delete vocab.json"
                                   << "vocab.json"
                                   << "no tokenizer: missing vocab.json";
    QTest::newRow("no target.spm") << "delete target.spm"
                                   << "target.spm"
                                   << "no tokenizer: missing target.spm";
}

void TestMarianCheckpoint::refused() {
    QFETCH(QString, breakage);
    QFETCH(QString, file);
    QFETCH(QString, fragment);
    const fs::path d = tmp_.filePath(QStringLiteral("broken")).toStdString();
    if (breakage.startsWith(QStringLiteral("delete "))) {
        fs::remove_all(d);
        fs::copy(base_, d);
        fs::remove(d / breakage.section(QLatin1Char(' '), 1).toStdString());
    } else {
        breakCheckpoint(
            base_, d, breakage, 32, [](SafetensorsEdit& t, const QString& verb, const std::string& name) {
                if (verb == QStringLiteral("untie")) { // a table of its own under one of the shared names
                    auto& table = t.data[t.index(name)];
                    table[0] += 1.0f;
                }
            });
    }
    expectRefused(d, fragment, file);
}

void TestMarianCheckpoint::savedInOurFormat() {
    // Saved in attnscope's format, the folder keeps the .spm files and vocab.json and reads back the same.
    const auto model = core::Model::load(base_, core::DeviceChoice::Cpu);
    const auto ours = tmp_.filePath(QStringLiteral("ours")).toStdString();
    model->save(ours);
    for (const char* file : {"source.spm", "target.spm", "vocab.json"})
        QVERIFY2(fs::exists(fs::path(ours) / file), file);
    const auto again = core::Model::load(ours, core::DeviceChoice::Cpu);
    QCOMPARE(again->config().tokenizer, core::TokenizerKind::Marian);
    QVERIFY(again->config().sinusoidHalves);
    const auto text = "The big cat sat on the red mat.";
    QCOMPARE(idsOf(again->sourceTokens(text)), idsOf(model->sourceTokens(text)));
    const auto src = idsOf(model->sourceTokens(text));
    const std::vector<int64_t> tgt{model->targetTokenizer().vocab().bos(), 5, 9};
    QCOMPARE(core::analyze(*again, src, tgt).nextTokenLogProbs,
             core::analyze(*model, src, tgt).nextTokenLogProbs);
}

void TestMarianCheckpoint::commandLine() {
    QByteArray out, err;
    const auto model = QString::fromStdString(base_);
    QCOMPARE(run({QStringLiteral("dump"), QStringLiteral("--model"), model, QStringLiteral("--src"),
                  QStringLiteral("The big cat sat on the red mat."), QStringLiteral("--greedy"),
                  QStringLiteral("4")},
                 &out, &err),
             0);
    const auto j = json::parse(out.toStdString());
    QCOMPARE(j["model"].get<std::string>(), std::string("tiny-marian-reference"));
    QCOMPARE(j["tgt_tokens"].size(), std::size_t(5)); // <pad> and the 4 decoded
    QCOMPARE(j["src_tokens"].back().get<std::string>(), std::string("</s>"));
    QCOMPARE(j["tgt_tokens"].front().get<std::string>(), std::string("<pad>"));
    for (const char* kind : {"encoder", "decoder", "cross"})
        QCOMPARE(j["attention"][kind].size(), std::size_t(2));
    QCOMPARE(
        run({QStringLiteral("explain"), QStringLiteral("--model"), model, QStringLiteral("--src"),
             QStringLiteral("The cat sat."), QStringLiteral("--kind"), QStringLiteral("cross"),
             QStringLiteral("--layer"), QStringLiteral("1"), QStringLiteral("--head"), QStringLiteral("2")},
            &out, &err),
        0);
    const auto explained = json::parse(out.toStdString());
    QVERIFY(explained["post_norm"].get<bool>());
}

void TestMarianCheckpoint::cleanupTestCase() {
    if (worstLogProb_ > 0.0 || worstAttention_ > 0.0)
        qInfo("worst over all checkpoints: log-probabilities %.3g, attention %.3g", worstLogProb_,
              worstAttention_);
}

ATTNSCOPE_GUILESS_MAIN(TestMarianCheckpoint)
#include "test_mariancheckpoint.moc"
