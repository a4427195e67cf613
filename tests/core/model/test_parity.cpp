// Parity with the seed's PyTorch code (tests/reference/seed_transformer.py, Debian's python3-torch), both
// directions: the seed's weights run here, and weights written here load into the seed with
// load_state_dict(strict=True).

#include "core/base/Errors.h"
#include "core/model/SeedExport.h"
#include "core/run/Analyze.h"
#include "tests/support/ReferencePython.h"
#include "tests/support/SkipReport.h"
#include "tests/support/TestModels.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>

using nlohmann::json;

class TestParity : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void seedWeightsRunHere();
    void attentionOnlyMatchesTheSeed();
    void ourWeightsLoadInSeed_data();
    void ourWeightsLoadInSeed();
    void shippedModelsLoadInSeed_data();
    void shippedModelsLoadInSeed();
    void refusesWhatTheSeedCannotExpress();

private:
    double compareCase(const core::Model& model, const json& ref);

    QTemporaryDir dir_;
    double worst_ = 0.0;
};

void TestParity::initTestCase() {
    QVERIFY(dir_.isValid());
}

double TestParity::compareCase(const core::Model& model, const json& ref) {
    const auto src = ref["src_ids"].get<std::vector<int64_t>>();
    const auto tgt = ref["tgt_ids"].get<std::vector<int64_t>>();
    const auto snap = core::analyze(model, src, tgt);
    double worst = 0.0;
    for (auto kind :
         {core::AttentionKind::Encoder, core::AttentionKind::Decoder, core::AttentionKind::Cross}) {
        const auto& b = snap.block(kind);
        const auto& r = ref[core::toString(kind)];
        if (b.layers != int(r.size()) || b.heads != int(r[0].size()) || b.queries != int(r[0][0].size()) ||
            b.keys != int(r[0][0][0].size()))
            return 1e9;
        for (int l = 0; l < b.layers; ++l)
            for (int h = 0; h < b.heads; ++h)
                for (int q = 0; q < b.queries; ++q)
                    for (int k = 0; k < b.keys; ++k)
                        worst =
                            std::max(worst, std::abs(double(b.at(l, h, q, k)) - r[l][h][q][k].get<double>()));
    }
    const auto lp = ref["next_token_logprobs"].get<std::vector<double>>();
    if (lp.size() != snap.nextTokenLogProbs.size())
        return 1e9;
    // An unlikely token's log-probability runs to −40 and beyond, where float32 keeps about seven digits: its
    // difference is taken relative to its size (to 1 for the likely ones, whose absolute difference counts).
    for (std::size_t i = 0; i < lp.size(); ++i)
        worst = std::max(worst, std::abs(double(snap.nextTokenLogProbs[i]) - lp[i]) /
                                    std::max(1.0, std::abs(lp[i])));
    return worst;
}

void TestParity::seedWeightsRunHere() {
    const auto out = dir_.filePath(QStringLiteral("seed"));
    QString err;
    if (!runReferenceScript({QStringLiteral("make_seed_reference.py"), QStringLiteral("--out"), out}, &err)) {
        if (!err.startsWith(QStringLiteral("skipped: ")))
            QFAIL(qPrintable(err));
        QSKIP_MISSING(qPrintable(err));
    }
    const auto model = core::Model::load(out.toStdString(), core::DeviceChoice::Cpu);
    std::ifstream in((out + QStringLiteral("/reference.json")).toStdString());
    const auto ref = json::parse(in);
    QCOMPARE(ref["cases"].size(), std::size_t(3));
    double worst = 0.0;
    for (const auto& c : ref["cases"])
        worst = std::max(worst, compareCase(*model, c));
    qInfo("seed weights here: largest difference over 3 cases (all attention kinds, log-probs): %.3g", worst);
    QVERIFY(worst <= 1e-5);
}

void TestParity::attentionOnlyMatchesTheSeed() {
    // d_ff 0: no feed-forward sublayer. The seed's model with its feed-forwards answering zeros is the same
    // function (its residual passes x on), written without those weights.
    const auto out = dir_.filePath(QStringLiteral("attention-only"));
    QString err;
    if (!runReferenceScript({QStringLiteral("seed_attention_only.py"), QStringLiteral("--out"), out}, &err)) {
        if (!err.startsWith(QStringLiteral("skipped: ")))
            QFAIL(qPrintable(err));
        QSKIP_MISSING(qPrintable(err));
    }
    const auto model = core::Model::load(out.toStdString(), core::DeviceChoice::Cpu);
    QCOMPARE(model->config().dFf, 0);
    QVERIFY(QString::fromStdString(model->config().shape()).contains(QStringLiteral("attention-only")));
    std::ifstream in((out + QStringLiteral("/reference.json")).toStdString());
    const auto ref = json::parse(in);
    double worst = 0.0;
    for (const auto& c : ref["cases"])
        worst = std::max(worst, compareCase(*model, c));
    qInfo(
        "attention-only seed model here: largest difference over %d cases (all attention kinds, log-probs): "
        "%.3g",
        int(ref["cases"].size()), worst);
    QVERIFY(worst <= 1e-5);
    // Saved and read back: still attention-only, the same numbers.
    const auto again = dir_.filePath(QStringLiteral("attention-only-saved"));
    model->save(again.toStdString());
    const auto reread = core::Model::load(again.toStdString(), core::DeviceChoice::Cpu);
    QCOMPARE(reread->config().dFf, 0);
    QVERIFY(compareCase(*reread, ref["cases"][0]) <= 1e-5);
}

void TestParity::ourWeightsLoadInSeed_data() {
    QTest::addColumn<bool>("share");
    QTest::addColumn<bool>("tie");
    QTest::addColumn<bool>("scale");
    QTest::addColumn<int>("decoderLayers");
    QTest::newRow("separate tables") << false << false << true << 2;
    QTest::newRow("shared and tied") << true << true << true << 2;
    QTest::newRow("tied, unscaled, 2 + 1 layers") << false << true << false << 1;
}

void TestParity::ourWeightsLoadInSeed() {
    // Our own files differ from the seed's state_dict (max_len rows of positions, not 5,000; a shared or
    // tied table stored once), so the seed's strict load refuses them; `convert --to seed` writes the
    // seed's form, which it loads strictly and runs to within 1e-5 of us, and which we read back as the
    // same model.
    QFETCH(bool, share);
    QFETCH(bool, tie);
    QFETCH(bool, scale);
    QFETCH(int, decoderLayers);
    auto c = smallConfig(core::Architecture::EncoderDecoder, core::PositionalEncoding::Sinusoidal);
    c.shareEmbeddings = share;
    c.tieOutput = tie;
    c.scaleEmbeddings = scale;
    c.decoderLayers = decoderLayers;
    const auto model = randomModel(c, 11);
    const auto tag = QString::fromLatin1(QTest::currentDataTag()).replace(QLatin1Char(' '), QLatin1Char('_'));
    const auto plain = dir_.filePath(tag + QStringLiteral("-ours"));
    const auto seedForm = dir_.filePath(tag + QStringLiteral("-seed"));
    model->save(plain.toStdString());
    core::writeSeedDirectory(*model, seedForm.toStdString());
    const json cases = {{"cases",
                         {{{"src_ids", {1, 5, 6, 7, 8, 2}}, {"tgt_ids", {1, 9, 10}}},
                          {{"src_ids", {1, 12, 13, 2, 0, 0}}, {"tgt_ids", {1, 20, 21, 22, 23}}}}}};
    const auto casesPath = dir_.filePath(QStringLiteral("cases.json"));
    std::ofstream(casesPath.toStdString()) << cases.dump();
    const auto outPath = dir_.filePath(tag + QStringLiteral("-seed-out.json"));
    QString err;
    const QStringList load{QStringLiteral("check_load.py"),
                           QStringLiteral("--cases"),
                           casesPath,
                           QStringLiteral("--out"),
                           outPath,
                           QStringLiteral("--model")};
    QVERIFY2(!runReferenceScript(load + QStringList{plain}, &err), "the seed loaded our own form strictly");
    if (err.startsWith(QStringLiteral("skipped: ")))
        QSKIP_MISSING(qPrintable(err));
    QVERIFY2(err.contains(QStringLiteral("refused")), qPrintable(err));
    const auto why =
        err.split(QLatin1Char('\n')).filter(QRegularExpression(QStringLiteral("Missing key|size mismatch")));
    QVERIFY2(!why.isEmpty(), qPrintable(err));
    qInfo("the seed refuses our own form: %s", qPrintable(why.first().trimmed().left(170)));
    QVERIFY2(runReferenceScript(load + QStringList{seedForm}, &err), qPrintable(err));
    std::ifstream in(outPath.toStdString());
    const auto ref = json::parse(in);
    double worst = 0.0;
    for (const auto& cs : ref["cases"])
        worst = std::max(worst, compareCase(*model, cs));
    // Read back here: the seed's form is the same model to us.
    const auto back = core::Model::load(seedForm.toStdString(), core::DeviceChoice::Cpu);
    double roundTrip = 0.0;
    for (const auto& cs : ref["cases"])
        roundTrip = std::max(roundTrip, compareCase(*back, cs));
    qInfo(
        "the seed's form, loaded strictly by the seed: largest difference over 2 cases %.3g; read back here "
        "%.3g",
        worst, roundTrip);
    QVERIFY(worst <= 1e-5);
    QVERIFY(roundTrip <= 1e-5);
}

void TestParity::refusesWhatTheSeedCannotExpress() {
    // Refused by name, and nothing is written.
    const auto check = [this](core::ModelConfig c, const char* field) {
        const auto out = dir_.filePath(QStringLiteral("refused-") + QLatin1String(field));
        try {
            core::writeSeedDirectory(*randomModel(c, 3), out.toStdString());
            QFAIL(qPrintable(QStringLiteral("wrote a model with another %1").arg(QLatin1String(field))));
        } catch (const core::InputError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QLatin1String(field)), e.what());
        }
        QVERIFY(!QFileInfo::exists(out));
    };
    check(smallConfig(core::Architecture::DecoderOnly, core::PositionalEncoding::Sinusoidal), "decoder_only");
    check(smallConfig(core::Architecture::EncoderDecoder, core::PositionalEncoding::Rope),
          "positional_encoding");
    check(smallConfig(core::Architecture::EncoderDecoder, core::PositionalEncoding::Sinusoidal,
                      core::LayerNormKind::Standard),
          "layer_norm");
    auto gelu = smallConfig(core::Architecture::EncoderDecoder, core::PositionalEncoding::Sinusoidal);
    gelu.activation = core::Activation::Gelu;
    check(gelu, "activation");
    auto attentionOnly =
        smallConfig(core::Architecture::EncoderDecoder, core::PositionalEncoding::Sinusoidal);
    attentionOnly.dFf = 0;
    check(attentionOnly, "d_ff");
}

void TestParity::shippedModelsLoadInSeed_data() {
    QTest::addColumn<QString>("name");
    for (const char* name : {"en-es", "copy", "addition"})
        QTest::newRow(name) << QString::fromLatin1(name);
}

void TestParity::shippedModelsLoadInSeed() {
    // The built-in models, written in the seed's form, run in the seed's code as they run here.
    QFETCH(QString, name);
    const auto model =
        core::Model::load((QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/") + name).toStdString(),
                          core::DeviceChoice::Cpu);
    const auto out = dir_.filePath(name + QStringLiteral("-seed"));
    core::writeSeedDirectory(*model, out.toStdString());
    const auto src = model->sourceTokens(model->config().example.empty() ? std::string("The old man walked.")
                                                                         : model->config().example);
    std::vector<int64_t> srcIds;
    for (const auto& t : src)
        srcIds.push_back(t.id);
    const auto& v = model->targetTokenizer().vocab();
    const json cases = {{"cases", {{{"src_ids", srcIds}, {"tgt_ids", {v.bos(), 5, 6, 7}}}}}};
    const auto casesPath = dir_.filePath(name + QStringLiteral("-cases.json"));
    std::ofstream(casesPath.toStdString()) << cases.dump();
    const auto outPath = dir_.filePath(name + QStringLiteral("-seed-out.json"));
    QString err;
    if (!runReferenceScript({QStringLiteral("check_load.py"), QStringLiteral("--model"), out,
                             QStringLiteral("--cases"), casesPath, QStringLiteral("--out"), outPath},
                            &err)) {
        if (!err.startsWith(QStringLiteral("skipped: ")))
            QFAIL(qPrintable(err));
        QSKIP_MISSING(qPrintable(err));
    }
    std::ifstream in(outPath.toStdString());
    const auto ref = json::parse(in);
    const double worst = compareCase(*model, ref["cases"][0]);
    qInfo("%s in the seed's form (%zu source tokens): largest difference %.3g", qPrintable(name),
          srcIds.size(), worst);
    QVERIFY(worst <= 1e-5);
}

ATTNSCOPE_GUILESS_MAIN(TestParity)
#include "test_parity.moc"
