// Direct logit attribution against the seed's PyTorch code (tests/reference/seed_attribution.py): forward
// hooks give every head's output before W_O, every MLP's output and the final stream, the final norm frozen
// at its measured scale; every component's contribution to the model's most likely token's logit, and to
// its difference from the second's, agrees within 1e-5 at every position of six runs (heads switched off in
// three), and so does each of Hugging Face-named GPT-2 (F32 and BF16 weights), Llama and Qwen2 folders'
// against gpt2_reference.py's and llama_reference.py's float64 splits, written from the published designs.
// For every family attnscope opens (the shipped models, GPT-2 in F32 and BF16, Llama, Qwen2, BERT's masked-LM
// head, post-norm Marian) the contributions add up to the model's own logit within 1e-4 relative, and every
// attention sublayer's heads and bias add up to its output as the pass computed it.

#include "tests/support/ReferenceCompare.h"
#include "tests/support/ReferencePython.h"
#include "tests/support/SkipReport.h"

#include "core/analysis/Attribution.h"
#include "core/base/Errors.h"
#include "core/run/Session.h"

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

using nlohmann::json;

namespace {

void skipOrFail(const QString& why) {
    if (why.startsWith(QStringLiteral("skipped")))
        QSKIP_MISSING(qPrintable(why));
    QFAIL(qPrintable(why));
}

double relativeGap(const core::Attribution& a) {
    return std::abs(a.sum - a.logit) / std::max(1.0, std::abs(a.logit));
}

} // namespace

class TestAttribution : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

private Q_SLOTS:
    void matchesTheSeed();
    void matchesTheFamilies_data();
    void matchesTheFamilies();
    void sumsToTheLogit_data();
    void sumsToTheLogit();
    void refusesWhatItCannotRead();
};

void TestAttribution::matchesTheSeed() {
    const auto dir = tmp_.filePath(QStringLiteral("seed"));
    QString why;
    if (!runReferenceScript({QStringLiteral("seed_attribution.py"), QStringLiteral("--out"), dir}, &why))
        return skipOrFail(why);
    const auto model = core::Model::load(dir.toStdString(), core::DeviceChoice::Cpu);
    std::ifstream in((dir + QStringLiteral("/attribution.json")).toStdString());
    const auto ref = json::parse(in);
    double worst = 0.0, worstSum = 0.0, largest = 0.0;
    int runs = 0, compared = 0;
    for (const auto& cs : ref["cases"]) {
        const auto off = ablationOf(cs);
        const auto snap = referenceRun(model, cs);
        for (const auto& at : cs["positions"]) {
            const int position = at["position"].get<int>();
            const auto token = at["token"].get<int64_t>(), versus = at["versus"].get<int64_t>();
            for (const bool difference : {false, true}) {
                const auto a = core::directLogitAttribution(*model, snap, position, token,
                                                            difference ? versus : -1, off);
                std::map<std::string, double> mine;
                for (const auto& c : a.components)
                    mine[c.name] = c.contribution;
                const auto& want = at["components"];
                QCOMPARE(mine.size(), want.size());
                for (const auto& [name, values] : want.items()) {
                    QVERIFY2(mine.count(name),
                             qPrintable(QStringLiteral("no component %1").arg(name.c_str())));
                    const double v = values[difference ? 1 : 0].get<double>();
                    worst = std::max(worst, std::abs(mine[name] - v));
                    largest = std::max(largest, std::abs(v));
                    ++compared;
                }
                const double logit = at[difference ? "difference" : "logit"].get<double>();
                worstSum = std::max(worstSum, std::abs(a.logit - logit));
                QVERIFY(relativeGap(a) <= 1e-4);
            }
        }
        ++runs;
    }
    qInfo(
        "%d runs of the seed's model, %d contributions (the largest %.3g): they differ by at most %.3g; the "
        "model's own logit by %.3g",
        runs, compared, largest, worst, worstSum);
    QVERIFY(runs >= 6);
    QVERIFY(largest > 0.1); // contributions that could be wrong
    QVERIFY(worst <= 1e-5);
    QVERIFY(worstSum <= 1e-5);
}

void TestAttribution::matchesTheFamilies_data() {
    QTest::addColumn<QStringList>("script");
    QTest::newRow("GPT-2") << QStringList{QStringLiteral("gpt2_reference.py")};
    QTest::newRow("GPT-2, BF16 weights") << QStringList{QStringLiteral("gpt2_reference.py"),
                                                        QStringLiteral("--dtype"), QStringLiteral("BF16")};
    QTest::newRow("Llama") << QStringList{QStringLiteral("llama_reference.py")};
    QTest::newRow("Qwen2, tied") << QStringList{QStringLiteral("llama_reference.py"),
                                                QStringLiteral("--type"), QStringLiteral("qwen2"),
                                                QStringLiteral("--tied")};
}

void TestAttribution::matchesTheFamilies() {
    // Hugging Face-named folders whose reference (written from each family's published design, in float64)
    // splits every position's most likely token's logit component by component.
    QFETCH(QStringList, script);
    const auto dir = tmp_.filePath(QStringLiteral("split-") + QString::fromLatin1(QTest::currentDataTag()));
    QString why;
    if (!runReferenceScript(QStringList{script.front(), dir} + script.mid(1), &why))
        return skipOrFail(why);
    const auto ref = readJson(std::filesystem::path(dir.toStdString()) / "reference.json");
    const auto model = core::Model::load(dir.toStdString(), core::DeviceChoice::Cpu);
    core::Session run(model);
    run.analyzeIds(ref["ids"].get<std::vector<int64_t>>(), {});
    const auto snap = run.snapshot();
    double worst = 0.0, largest = 0.0;
    int compared = 0;
    for (const auto& at : ref["attribution"]) {
        const auto a =
            core::directLogitAttribution(*model, snap, at["position"].get<int>(), at["token"].get<int64_t>());
        std::map<std::string, double> mine;
        for (const auto& c : a.components)
            mine[c.name] = c.contribution;
        QCOMPARE(mine.size(), at["components"].size());
        for (const auto& [name, value] : at["components"].items()) {
            QVERIFY2(mine.count(name), qPrintable(QStringLiteral("no component %1").arg(name.c_str())));
            worst = std::max(worst, std::abs(mine[name] - value.get<double>()));
            largest = std::max(largest, std::abs(value.get<double>()));
            ++compared;
        }
        QVERIFY(std::abs(a.logit - at["logit"].get<double>()) <= 1e-5);
    }
    qInfo("%s: %d contributions over %zu positions (the largest %.3g) differ by at most %.3g",
          QTest::currentDataTag(), compared, ref["attribution"].size(), largest, worst);
    QVERIFY(compared > 0 && largest > 0.1);
    QVERIFY(worst <= 1e-5);
}

void TestAttribution::sumsToTheLogit_data() {
    QTest::addColumn<QString>("model");      // a shipped model's folder, or empty
    QTest::addColumn<QStringList>("script"); // else the reference script writing the folder
    for (const char* name :
         {"tiny-lm", "en-es", "reverse", "copy", "sort", "addition", "induction", "demo-random"})
        QTest::newRow(name) << QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/%1").arg(name)
                            << QStringList{};
    QTest::newRow("GPT-2") << QString() << QStringList{QStringLiteral("gpt2_reference.py")};
    QTest::newRow("GPT-2, BF16 weights") << QString()
                                         << QStringList{QStringLiteral("gpt2_reference.py"),
                                                        QStringLiteral("--dtype"), QStringLiteral("BF16")};
    QTest::newRow("Llama") << QString() << QStringList{QStringLiteral("llama_reference.py")};
    QTest::newRow("Qwen2, tied") << QString()
                                 << QStringList{QStringLiteral("llama_reference.py"),
                                                QStringLiteral("--type"), QStringLiteral("qwen2"),
                                                QStringLiteral("--tied")};
    QTest::newRow("BERT, masked-LM head") << QString() << QStringList{QStringLiteral("bert_reference.py")};
    QTest::newRow("Marian, post-norm") << QString() << QStringList{QStringLiteral("marian_reference.py")};
}

void TestAttribution::sumsToTheLogit() {
    QFETCH(QString, model);
    QFETCH(QStringList, script);
    auto dir = model;
    if (dir.isEmpty()) {
        dir = tmp_.filePath(QString::fromLatin1(QTest::currentDataTag()));
        QString why;
        if (!runReferenceScript(QStringList{script.front(), dir} + script.mid(1), &why))
            return skipOrFail(why);
    }
    const auto m = core::Model::load(dir.toStdString(), core::DeviceChoice::Cpu);
    const auto& c = m->config();
    core::Session run(m);
    // Ids inside every vocabulary, from the reference where it wrote some.
    std::vector<int64_t> src{5, 6, 7, 8, 9}, tgt{1, 10, 11, 12};
    const auto refFile = std::filesystem::path(dir.toStdString()) / "reference.json";
    if (std::filesystem::exists(refFile)) {
        const auto ref = readJson(refFile);
        if (ref.contains("ids"))
            src = tgt = ref["ids"].get<std::vector<int64_t>>();
        if (ref.contains("src_ids")) {
            src = ref["src_ids"].get<std::vector<int64_t>>();
            tgt = ref["tgt_ids"].get<std::vector<int64_t>>();
        }
    }
    if (c.twoSided())
        run.analyzeIds(src, tgt);
    else
        run.analyzeIds(c.hasEncoder() ? src : tgt, {});
    const auto snap = run.snapshot();
    const int T = static_cast<int>((c.hasDecoder() ? snap.tgtTokens : snap.srcTokens).size());
    double worst = 0.0, worstSplit = 0.0, biggest = 0.0;
    std::size_t components = 0;
    double ms = 0.0;
    for (int p = 0; p < T; ++p) {
        const auto a = core::directLogitAttribution(*m, snap, p);
        const auto b = core::directLogitAttribution(*m, snap, p, a.token, (a.token + 1) % 7);
        worst = std::max({worst, relativeGap(a), relativeGap(b)});
        worstSplit = std::max({worstSplit, a.splitGap, b.splitGap});
        for (const auto& comp : a.components)
            biggest = std::max(biggest, std::abs(comp.contribution));
        components = a.components.size();
        ms = std::max(ms, a.ms);
        QCOMPARE(a.postNorm, c.postNorm);
    }
    qInfo(
        "%s: %d positions, %zu components each (the largest %.3g): the sum differs from the model's logit by "
        "at most %.2g relative; heads and bias from their sublayer's output by %.2g; %.1f ms a position at "
        "most",
        QTest::currentDataTag(), T, components, biggest, worst, worstSplit, ms);
    QVERIFY(T > 0);
    QVERIFY(biggest > 0.0);
    QVERIFY(worst <= 1e-4);
    QVERIFY(worstSplit <= 1e-4);
}

void TestAttribution::refusesWhatItCannotRead() {
    const auto spam =
        core::Model::load(ATTNSCOPE_SOURCE_DIR "/resources/models/spam", core::DeviceChoice::Cpu);
    core::Session classify(spam);
    classify.analyze("win money now");
    try {
        core::directLogitAttribution(*spam, classify.snapshot(), 0);
        QFAIL("a classifier has no attribution");
    } catch (const core::InputError& e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("not a Transformer")), e.what());
    }
    const auto lm =
        core::Model::load(ATTNSCOPE_SOURCE_DIR "/resources/models/tiny-lm", core::DeviceChoice::Cpu);
    core::Session run(lm);
    run.analyze("the cat");
    const auto snap = run.snapshot();
    for (const auto& [position, token, expected] :
         {std::tuple{99, int64_t(-1), "position 99 is outside"},
          std::tuple{0, int64_t(99999999), "outside the vocabulary"}})
        try {
            core::directLogitAttribution(*lm, snap, position, token);
            QFAIL(expected);
        } catch (const core::InputError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QLatin1String(expected)), e.what());
        }
}

ATTNSCOPE_GUILESS_MAIN(TestAttribution)
#include "test_attribution.moc"
