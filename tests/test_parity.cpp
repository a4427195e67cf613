// Parity with the seed's PyTorch code (tests/reference/seed_transformer.py, Debian's python3-torch), both
// directions: the seed's weights run here, and weights written here load into the seed with
// load_state_dict(strict=True).

#include "SkipReport.h"
#include "TestModels.h"
#include "core/run/Analyze.h"

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
    void ourWeightsLoadInSeed();

private:
    /// Runs a reference script; QSKIPs (saying why) when Python or the seed is not there.
    bool runPython(const QStringList& args, QString* error);
    double compareCase(const core::Model& model, const json& ref);

    QTemporaryDir dir_;
    QString python_;
    double worst_ = 0.0;
};

void TestParity::initTestCase() {
    QVERIFY(dir_.isValid());
    python_ = QStringLiteral("/usr/bin/python3");
    if (!QFileInfo::exists(python_))
        QSKIP_MISSING("skipped: /usr/bin/python3 (Debian's, with python3-torch) is not installed");
}

bool TestParity::runPython(const QStringList& args, QString* error) {
    QProcess p;
    p.setWorkingDirectory(QStringLiteral(ATTNSCOPE_SOURCE_DIR "/tests/reference"));
    p.start(python_, args);
    if (!p.waitForFinished(300000)) {
        *error = QStringLiteral("python did not finish");
        return false;
    }
    *error = QString::fromUtf8(p.readAllStandardError());
    if (p.exitCode() == 77)
        return false;
    if (p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
        qWarning("%s", qPrintable(*error));
        return false;
    }
    return true;
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
    for (std::size_t i = 0; i < lp.size(); ++i)
        worst = std::max(worst, std::abs(double(snap.nextTokenLogProbs[i]) - lp[i]));
    return worst;
}

void TestParity::seedWeightsRunHere() {
    const auto out = dir_.filePath(QStringLiteral("seed"));
    QString err;
    if (!runPython({QStringLiteral("make_seed_reference.py"), QStringLiteral("--out"), out}, &err)) {
        if (!err.contains(QStringLiteral("seed reference not found")))
            QFAIL(qPrintable(err));
        QSKIP_MISSING(qPrintable(QStringLiteral("skipped: %1").arg(err.trimmed())));
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

void TestParity::ourWeightsLoadInSeed() {
    auto c = smallConfig(core::Architecture::EncoderDecoder, core::PositionalEncoding::Sinusoidal);
    c.maxLen = 5000; // the seed's PositionalEncoding buffer is always 5000 long
    const auto model = randomModel(c, 11);
    const auto dir = dir_.filePath(QStringLiteral("ours"));
    model->save(dir.toStdString());
    const json cases = {{"cases",
                         {{{"src_ids", {1, 5, 6, 7, 8, 2}}, {"tgt_ids", {1, 9, 10}}},
                          {{"src_ids", {1, 12, 13, 2, 0, 0}}, {"tgt_ids", {1, 20, 21, 22, 23}}}}}};
    const auto casesPath = dir_.filePath(QStringLiteral("cases.json"));
    std::ofstream(casesPath.toStdString()) << cases.dump();
    const auto outPath = dir_.filePath(QStringLiteral("seed-out.json"));
    QString err;
    if (!runPython({QStringLiteral("check_load.py"), QStringLiteral("--model"), dir,
                    QStringLiteral("--cases"), casesPath, QStringLiteral("--out"), outPath},
                   &err)) {
        if (!err.contains(QStringLiteral("seed reference not found")))
            QFAIL(qPrintable(err));
        QSKIP_MISSING(qPrintable(QStringLiteral("skipped: %1").arg(err.trimmed())));
    }
    std::ifstream in(outPath.toStdString());
    const auto ref = json::parse(in);
    double worst = 0.0;
    for (const auto& cs : ref["cases"])
        worst = std::max(worst, compareCase(*model, cs));
    qInfo("our weights in the seed (strict load): largest difference over 2 cases: %.3g", worst);
    QVERIFY(worst <= 1e-5);
}

ATTNSCOPE_GUILESS_MAIN(TestParity)
#include "test_parity.moc"
