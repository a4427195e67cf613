// The logit lens against the seed's PyTorch code (tests/reference/seed_lens.py): the residual stream recorded
// by forward hooks after the embeddings and after every sublayer, read through the seed's final norm and
// generator, agrees with attnscope's at every point, position and token within 1e-5, heads switched off too;
// the last point is the model's own next-token distribution (a decoder-only and a post-norm model as well);
// models without an output to read through, and tokens outside the vocabulary, are refused by name. The
// decoding timeline (each produced token's commitment point, recorded by the step that produced it) is the
// lens of the whole run read afterwards: greedy, sampled, forced, after Back, and with a head switched off.

#include "tests/support/ReferenceCompare.h"
#include "tests/support/ReferencePython.h"
#include "tests/support/SkipReport.h"
#include "tests/support/TestModels.h"

#include "core/analysis/LogitLens.h"
#include "core/base/Errors.h"
#include "core/run/Analyze.h"
#include "core/run/Session.h"

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

using nlohmann::json;

namespace {

const char* const kLanguageModel = ATTNSCOPE_SOURCE_DIR "/resources/models/tiny-lm";
const char* const kClassifier = ATTNSCOPE_SOURCE_DIR "/resources/models/spam";

void skipOrFail(const QString& why) {
    if (why.startsWith(QStringLiteral("skipped")))
        QSKIP_MISSING(qPrintable(why));
    QFAIL(qPrintable(why));
}

// The last point of the lens, at the last position, against the run's own next-token distribution.
double ownOutputGap(const core::LogitLens& lens, const core::AttentionSnapshot& snap) {
    const auto t = lens.tokens.size() - 1;
    const auto best = std::max_element(snap.nextTokenLogProbs.begin(), snap.nextTokenLogProbs.end());
    if (lens.chosen[t] != best - snap.nextTokenLogProbs.begin())
        return 1e9;
    return std::abs(double(lens.logprob.back()[t]) - double(*best));
}

} // namespace

class TestLogitLens : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

private Q_SLOTS:
    void matchesTheSeed();
    void matchesTheFamilies_data();
    void matchesTheFamilies();
    void lastPointIsTheModelsOwn();
    void refusesWhatItCannotRead();
    void timelineAgreesWithTheLens_data();
    void timelineAgreesWithTheLens();
};

void TestLogitLens::matchesTheSeed() {
    const auto dir = tmp_.filePath(QStringLiteral("seed"));
    QString why;
    if (!runReferenceScript({QStringLiteral("seed_lens.py"), QStringLiteral("--out"), dir}, &why))
        return skipOrFail(why);
    const auto model = core::Model::load(dir.toStdString(), core::DeviceChoice::Cpu);
    std::ifstream in((dir + QStringLiteral("/lens.json")).toStdString());
    const auto ref = json::parse(in);
    double worstProb = 0.0, worstChosen = 0.0, worstOwn = 0.0, spread = 0.0;
    int runs = 0, cells = 0;
    for (const auto& cs : ref["cases"]) {
        const auto off = ablationOf(cs);
        const auto snap = referenceRun(model, cs);
        const auto& refPoints = cs["points"];
        const int vocab = static_cast<int>(cs["logprobs"][0][0].size());
        const auto lens = core::logitLens(*model, snap, -1, vocab, off); // every token, ranked
        QCOMPARE(lens.points, refPoints.get<std::vector<std::string>>());
        QCOMPARE(lens.tokens.size(), cs["tgt_ids"].size());
        for (std::size_t p = 0; p < lens.points.size(); ++p)
            for (std::size_t t = 0; t < lens.tokens.size(); ++t) {
                const auto refLogp = cs["logprobs"][p][t].get<std::vector<double>>();
                QCOMPARE(int(lens.top[p][t].size()), vocab);
                for (const auto& c : lens.top[p][t]) {
                    worstProb =
                        std::max(worstProb, std::abs(double(c.prob) - std::exp(refLogp[std::size_t(c.id)])));
                    ++cells;
                }
                const auto chosen = std::size_t(lens.chosen[t]);
                worstChosen = std::max(worstChosen, std::abs(double(lens.logprob[p][t]) - refLogp[chosen]));
                // The ranking is the reference's too: as many tokens above the chosen one.
                const auto above = std::count_if(refLogp.begin(), refLogp.end(),
                                                 [&](double v) { return v > refLogp[chosen] + 1e-6; });
                QVERIFY(std::abs(lens.rank[p][t] - above) <= 1);
                // The readings differ from point to point, or agreeing with them would show little.
                if (p > 0)
                    spread = std::max(spread, std::abs(double(lens.logprob[p][t] - lens.logprob[0][t])));
            }
        worstOwn = std::max(worstOwn, ownOutputGap(lens, snap));
        const auto refOwn = cs["next_token_logprobs"].get<std::vector<double>>();
        worstOwn = std::max(
            worstOwn, std::abs(double(lens.logprob.back().back()) - refOwn[std::size_t(lens.chosen.back())]));
        ++runs;
    }
    qInfo(
        "%d runs of the seed's model (7 points each), %d readings: probabilities differ by at most %.3g, the "
        "chosen token's log-probability by %.3g, the last point from the model's own by %.3g; readings move "
        "by up to %.3g between points",
        runs, cells, worstProb, worstChosen, worstOwn, spread);
    QVERIFY(runs >= 6);
    QVERIFY(worstProb <= 1e-5);
    QVERIFY(worstChosen <= 1e-5);
    QVERIFY(worstOwn <= 1e-5);
    QVERIFY(spread > 0.1);
}

void TestLogitLens::matchesTheFamilies_data() {
    QTest::addColumn<QStringList>("script");
    QTest::newRow("GPT-2") << QStringList{QStringLiteral("gpt2_reference.py")};
    QTest::newRow("GPT-2, BF16 weights") << QStringList{QStringLiteral("gpt2_reference.py"),
                                                        QStringLiteral("--dtype"), QStringLiteral("BF16")};
    QTest::newRow("Llama") << QStringList{QStringLiteral("llama_reference.py")};
    QTest::newRow("Qwen2, tied") << QStringList{QStringLiteral("llama_reference.py"),
                                                QStringLiteral("--type"), QStringLiteral("qwen2"),
                                                QStringLiteral("--tied")};
}

void TestLogitLens::matchesTheFamilies() {
    // Hugging Face-named folders whose reference (written from each family's published design, in float64)
    // records the stream after the embeddings and after every attention and MLP, read through the final norm
    // and the output projection.
    QFETCH(QStringList, script);
    const auto dir = tmp_.filePath(QString::fromLatin1(QTest::currentDataTag()));
    QString why;
    if (!runReferenceScript(QStringList{script.front(), dir} + script.mid(1), &why))
        return skipOrFail(why);
    const auto ref = readJson(std::filesystem::path(dir.toStdString()) / "reference.json");
    const auto model = core::Model::load(dir.toStdString(), core::DeviceChoice::Cpu);
    const auto snap = core::analyze(*model, {}, ref["ids"].get<std::vector<int64_t>>(), /*capture=*/false);
    const auto& want = ref["lens"];
    const int vocab = static_cast<int>(want[0][0].size());
    const auto lens = core::logitLens(*model, snap, -1, vocab);
    QCOMPARE(lens.points.size(), want.size());
    QCOMPARE(lens.tokens.size(), want[0].size());
    double worst = 0.0, worstChosen = 0.0;
    for (std::size_t p = 0; p < lens.points.size(); ++p)
        for (std::size_t t = 0; t < lens.tokens.size(); ++t) {
            for (const auto& c : lens.top[p][t])
                worst = std::max(
                    worst, std::abs(double(c.prob) - std::exp(want[p][t][std::size_t(c.id)].get<double>())));
            worstChosen =
                std::max(worstChosen, std::abs(double(lens.logprob[p][t]) -
                                               want[p][t][std::size_t(lens.chosen[t])].get<double>()));
        }
    qInfo("%s: %zu points x %zu positions x %d tokens: probabilities differ by at most %.3g, the chosen "
          "token's log-probability by %.3g",
          QTest::currentDataTag(), lens.points.size(), lens.tokens.size(), vocab, worst, worstChosen);
    QVERIFY(worst <= 1e-5);
    QVERIFY(worstChosen <= 1e-5); // float32 against float64
}

void TestLogitLens::lastPointIsTheModelsOwn() {
    // A decoder-only model (the built-in language model) and a post-norm encoder-decoder: the last point is
    // the model's next-token distribution, and a chosen token outranks nothing there.
    const auto lm = core::Model::load(kLanguageModel, core::DeviceChoice::Cpu);
    core::Session lmRun(lm);
    lmRun.analyze("the cat sat on the");
    const auto lmSnap = lmRun.snapshot();
    const auto lens = core::logitLens(*lm, lmSnap);
    qInfo("tiny-lm: %zu points x %zu positions in %.1f ms; the last point's top token at the end: \"%s\"",
          lens.points.size(), lens.tokens.size(), lens.ms, lens.top.back().back().front().token.c_str());
    QCOMPARE(lens.points.front(), std::string("embed"));
    QCOMPARE(int(lens.points.size()), 1 + 2 * lm->config().decoderLayers);
    QVERIFY(ownOutputGap(lens, lmSnap) <= 1e-5);
    for (const auto r : lens.rank.back())
        QCOMPARE(r, int64_t(0));
    QCOMPARE(int(lens.top.front().front().size()), 10);

    auto c = smallConfig(core::Architecture::EncoderDecoder, core::PositionalEncoding::Sinusoidal);
    c.postNorm = true;
    const auto post = randomModel(c, 7);
    core::Session postRun(post);
    postRun.analyzeIds({1, 5, 6, 7, 2}, {1, 8, 9, 10});
    const auto postSnap = postRun.snapshot();
    const auto postLens = core::logitLens(*post, postSnap, 12);
    QVERIFY(postLens.postNorm);
    QCOMPARE(int(postLens.points.size()), 1 + 3 * c.decoderLayers);
    QCOMPARE(postLens.chosen, std::vector<int64_t>(4, 12));
    QVERIFY(std::abs(double(postLens.logprob.back().back()) - double(postSnap.nextTokenLogProbs[12])) <=
            1e-5);
}

void TestLogitLens::refusesWhatItCannotRead() {
    const auto spam = core::Model::load(kClassifier, core::DeviceChoice::Cpu);
    core::Session run(spam);
    run.analyze("win money now");
    try {
        core::logitLens(*spam, run.snapshot());
        QFAIL("a classifier has no lens");
    } catch (const core::InputError& e) {
        qInfo("classifier: %s", e.what());
        QVERIFY(std::string(e.what()).find("not a Transformer") != std::string::npos);
    }
    auto c = smallConfig(core::Architecture::EncoderOnly, core::PositionalEncoding::Sinusoidal);
    c.decoderLayers = 0;
    const auto bare = randomModel(c);
    core::Session bareRun(bare);
    bareRun.analyzeIds({1, 5, 6, 2}, {});
    QVERIFY_THROWS_EXCEPTION(core::InputError, core::logitLens(*bare, bareRun.snapshot()));
    const auto lm = core::Model::load(kLanguageModel, core::DeviceChoice::Cpu);
    core::Session lmRun(lm);
    lmRun.analyze("the cat");
    try {
        core::logitLens(*lm, lmRun.snapshot(), 1 << 30);
        QFAIL("a token outside the vocabulary");
    } catch (const core::InputError& e) {
        qInfo("token 2^30: %s", e.what());
        QVERIFY(std::string(e.what()).find("outside the vocabulary") != std::string::npos);
    }
}

void TestLogitLens::timelineAgreesWithTheLens_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("text");
    QTest::newRow("language model") << QString::fromLatin1(kLanguageModel)
                                    << QStringLiteral("the cat sat on");
    QTest::newRow("translator") << QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/en-es")
                                << QStringLiteral("the small white house");
}

void TestLogitLens::timelineAgreesWithTheLens() {
    QFETCH(QString, model);
    QFETCH(QString, text);
    const auto m = core::Model::load(model.toStdString(), core::DeviceChoice::Cpu);
    core::Session run(m);
    run.analyze(text.toStdString());
    const auto initial = run.snapshot().tgtTokens.size();
    // The first point from which the produced token is the lens's top at every later point.
    const auto expected = [](const core::LogitLens& lens, std::size_t position) {
        const auto token = lens.tokens[position].id;
        int from = -1;
        for (int p = static_cast<int>(lens.points.size()) - 1; p >= 0; --p) {
            if (lens.top[std::size_t(p)][position - 1].front().id != token)
                break;
            from = p;
        }
        return from;
    };
    int committed = 0, uncommitted = 0, compared = 0;
    const auto check = [&](const char* what) {
        const auto snap = run.snapshot();
        QCOMPARE(snap.commitment.size(), snap.tgtTokens.size());
        const auto lens = core::logitLens(*m, snap, -1, 1, run.ablation());
        QCOMPARE(snap.streamPoints, lens.points);
        for (std::size_t i = 0; i < snap.tgtTokens.size(); ++i) {
            const int want = i < initial ? -1 : expected(lens, i);
            if (snap.commitment[i] != want)
                QFAIL(qPrintable(
                    QStringLiteral("%1: position %2 (\"%3\") committed at %4 in the decode, at %5 in "
                                   "the lens of the whole run")
                        .arg(QLatin1String(what))
                        .arg(i)
                        .arg(QString::fromStdString(snap.tgtTokens[i].text))
                        .arg(snap.commitment[i])
                        .arg(want)));
            ++compared;
            if (i >= initial)
                (want >= 0 ? committed : uncommitted)++;
        }
    };
    for (int i = 0; i < 6 && !run.finished(); ++i)
        run.step();
    check("greedy");
    // Sampled hot, the draws are often not the top token: those have no commitment.
    core::SamplingSettings hot;
    hot.greedy = false;
    hot.temperature = 3.0;
    hot.seed = 11;
    run.setSampling(hot);
    for (int i = 0; i < 6 && !run.finished(); ++i)
        run.step();
    check("sampled");
    run.back();
    run.back();
    check("after Back");
    run.force(m->targetTokenizer().vocab().size() - 1); // the last id: hardly the top anywhere
    check("forced");
    core::HeadAblation off;
    core::addAblation(off, "0:0,0:1", core::AttentionKind::Decoder, m->config());
    run.setAblation(off);
    check("with two heads off");
    qInfo("%d positions compared; %d produced tokens committed, %d not (sampled or forced)", compared,
          committed, uncommitted);
    QVERIFY(committed > 0);
    QVERIFY(uncommitted > 0);
}

ATTNSCOPE_GUILESS_MAIN(TestLogitLens)
#include "test_logitlens.moc"
