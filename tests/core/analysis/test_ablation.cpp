// Head ablation and value norms against the seed's PyTorch code (tests/reference/seed_ablation.py): with the
// same heads' outputs zeroed before W_O, the next-token log-probabilities agree within 1e-4 and every
// attention weight within 1e-5, and ‖v_j W_O^(h)‖ computed directly there agrees with the snapshot's value
// norms; switching heads off during a run replays it exactly; heads a model lacks are refused by name; the
// next-token effect, the greedy outputs and the sweep measure what changed.

#include "tests/support/ReferenceCompare.h"
#include "tests/support/ReferencePython.h"
#include "tests/support/SkipReport.h"

#include "core/analysis/AblationEffects.h"
#include "core/analysis/ValueWeighting.h"
#include "core/base/Errors.h"
#include "core/model/HeadAblation.h"
#include "core/run/Session.h"

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>

using nlohmann::json;

namespace {

const char* const kReverse = ATTNSCOPE_SOURCE_DIR "/resources/models/reverse";
const char* const kLanguageModel = ATTNSCOPE_SOURCE_DIR "/resources/models/tiny-lm";

void skipOrFail(const QString& why) {
    if (why.startsWith(QStringLiteral("skipped")))
        QSKIP_MISSING(qPrintable(why));
    QFAIL(qPrintable(why));
}

double worstOf(const std::vector<float>& ours, const std::vector<double>& ref) {
    if (ours.size() != ref.size())
        return 1e9;
    double worst = 0.0;
    for (std::size_t i = 0; i < ours.size(); ++i)
        worst = std::max(worst, std::abs(double(ours[i]) - ref[i]));
    return worst;
}

std::string snapshotText(const core::AttentionSnapshot& s) {
    std::string out;
    std::vector<float> scratch;
    for (const auto kind : core::kAttentionKinds) {
        const auto& b = s.block(kind);
        for (int l = 0; l < b.layers; ++l)
            for (int h = 0; h < b.heads; ++h)
                for (int q = 0; q < b.queries; ++q) {
                    const float* r = b.row(l, h, q, scratch);
                    out.append(reinterpret_cast<const char*>(r), std::size_t(b.keys) * sizeof(float));
                }
    }
    out.append(reinterpret_cast<const char*>(s.nextTokenLogProbs.data()),
               s.nextTokenLogProbs.size() * sizeof(float));
    return out;
}

} // namespace

class TestAblation : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

private Q_SLOTS:
    void matchesTheSeed();
    void switchingDuringARunReplaysIt();
    void refusesHeadsTheModelLacks();
    void effectAndGreedyOutputs();
    void sweepFindsTheHeadsThatMatter();
    void valueWeightedRowsSumToOne();
    void valueNormsFollowStepsAndBack();
};

void TestAblation::matchesTheSeed() {
    const auto dir = tmp_.filePath(QStringLiteral("seed"));
    QString why;
    if (!runReferenceScript({QStringLiteral("seed_ablation.py"), QStringLiteral("--out"), dir}, &why))
        return skipOrFail(why);
    const auto model = core::Model::load(dir.toStdString(), core::DeviceChoice::Cpu);
    std::ifstream in((dir + QStringLiteral("/ablation.json")).toStdString());
    const auto ref = json::parse(in);
    double logp = 0.0, weights = 0.0, norms = 0.0, moved = 1e9;
    int runs = 0, ablated = 0;
    std::vector<double> unablated;
    for (const auto& cs : ref["cases"]) {
        const auto off = ablationOf(cs);
        const auto snap = referenceRun(model, cs);
        const auto refLogp = cs["next_token_logprobs"].get<std::vector<double>>();
        logp = std::max(logp, worstOf(snap.nextTokenLogProbs, refLogp));
        if (off.empty()) {
            unablated = refLogp;
        } else {
            // The reference itself must have moved, or agreeing with it would show nothing.
            moved = std::min(moved, worstOf(snap.nextTokenLogProbs, unablated));
            ++ablated;
        }
        for (const auto kind :
             {core::AttentionKind::Encoder, core::AttentionKind::Decoder, core::AttentionKind::Cross}) {
            const auto& b = snap.block(kind);
            const auto& n = snap.valueNorms(kind);
            const auto& layers = cs["attention"][core::toString(kind)];
            QCOMPARE(b.layers, int(layers.size()));
            QCOMPARE(n.layers, b.layers);
            QCOMPARE(n.keys, b.keys);
            for (int l = 0; l < b.layers; ++l)
                for (int h = 0; h < b.heads; ++h) {
                    for (int q = 0; q < b.queries; ++q)
                        weights = std::max(
                            weights, worstOf(std::vector<float>(b.row(l, h, q), b.row(l, h, q) + b.keys),
                                             layers[l][h][q].get<std::vector<double>>()));
                    const auto refNorms = cs["norms"][core::toString(kind)][l][h].get<std::vector<double>>();
                    for (int k = 0; k < n.keys; ++k)
                        norms = std::max(norms, std::abs(double(n.at(l, h, k)) - refNorms[std::size_t(k)]) /
                                                    std::max(1.0, std::abs(refNorms[std::size_t(k)])));
                }
        }
        ++runs;
    }
    qInfo("%d runs of the seed's model (%d with heads off): next-token log-probabilities differ by at most "
          "%.3g, "
          "weights by %.3g, value norms by %.3g (relative); each ablation moved the log-probabilities by at "
          "least %.3g",
          runs, ablated, logp, weights, norms, moved);
    QVERIFY(runs >= 10);
    QVERIFY(logp <= 1e-4);
    QVERIFY(weights <= 1e-5);
    QVERIFY(norms <= 1e-4);
    QVERIFY(moved > 1e-3);
}

void TestAblation::switchingDuringARunReplaysIt() {
    const auto model = core::Model::load(kReverse, core::DeviceChoice::Cpu);
    core::HeadAblation off;
    off.set({core::AttentionKind::Cross, 1, 2}, true);
    off.set({core::AttentionKind::Encoder, 0, 0}, true);

    core::Session during(model);
    during.analyze("abcdefg");
    for (int i = 0; i < 3; ++i)
        during.step();
    during.force(5);
    const auto tokens = during.targetIds();
    const auto before = snapshotText(during.snapshot());
    during.setAblation(off);
    QCOMPARE(during.targetIds(), tokens); // the same tokens, the step and the forced one kept
    QCOMPARE(during.decodedCount(), int64_t(4));
    QCOMPARE(during.snapshot().forced, std::vector<int>{4});
    QCOMPARE(QString::fromStdString(during.snapshot().ablation), QStringLiteral("encoder 0:0, cross 1:2"));

    core::Session fresh(model);
    fresh.setAblation(off);
    fresh.analyze("abcdefg");
    for (std::size_t i = 1; i < tokens.size(); ++i)
        fresh.force(tokens[i]);
    const auto replayed = snapshotText(during.snapshot());
    QVERIFY(replayed == snapshotText(fresh.snapshot()));
    QVERIFY(replayed != before);
    // Back steps through the replayed history; every head back on gives the first run again.
    QVERIFY(during.back());
    during.setAblation({});
    during.force(5);
    QVERIFY(snapshotText(during.snapshot()) == before);
}

void TestAblation::refusesHeadsTheModelLacks() {
    const auto model = core::Model::load(kReverse, core::DeviceChoice::Cpu);
    const auto lm = core::Model::load(kLanguageModel, core::DeviceChoice::Cpu);
    const auto expectError = [](const std::function<void()>& f, const char* part) {
        try {
            f();
        } catch (const core::InputError& e) {
            if (!QString::fromUtf8(e.what()).contains(QString::fromUtf8(part)))
                QFAIL(qPrintable(QStringLiteral("'%1' does not name '%2'").arg(e.what(), part)));
            return;
        }
        QFAIL(qPrintable(QStringLiteral("no error naming '%1'").arg(part)));
    };
    core::Session session(model);
    session.analyze("abc");
    const auto before = session.snapshot().nextTokenLogProbs;
    core::HeadAblation h;
    expectError([&] { core::addAblation(h, "1:4", core::AttentionKind::Decoder, model->config()); },
                "heads 0–3");
    expectError([&] { core::addAblation(h, "2:0", core::AttentionKind::Encoder, model->config()); },
                "layers 0–1");
    expectError([&] { core::addAblation(h, "1-2", core::AttentionKind::Cross, model->config()); },
                "\"1-2\" is not a head");
    expectError([&] { core::addAblation(h, "pool:0:0", core::AttentionKind::Cross, model->config()); },
                "not a head");
    expectError([&] { core::addAblation(h, "0:1", core::AttentionKind::Cross, lm->config()); },
                "no cross attention");
    QVERIFY(h.empty());
    core::HeadAblation bad;
    bad.set({core::AttentionKind::Decoder, 0, 9}, true);
    expectError([&] { session.setAblation(bad); }, "decoder 0:9");
    QVERIFY(session.ablation().empty());
    QCOMPARE(session.snapshot().nextTokenLogProbs, before); // nothing changed
    core::addAblation(h, "0:1,encoder:1:3", core::AttentionKind::Cross, model->config());
    QCOMPARE(QString::fromStdString(h.text()), QStringLiteral("encoder 1:3, cross 0:1"));
    const auto gru =
        core::Model::load(ATTNSCOPE_SOURCE_DIR "/resources/models/en-es-gru", core::DeviceChoice::Cpu);
    core::Session recurrent(gru);
    core::HeadAblation one;
    one.set({core::AttentionKind::Cross, 0, 0}, true);
    expectError([&] { recurrent.setAblation(one); }, "needs a Transformer");
}

void TestAblation::effectAndGreedyOutputs() {
    const auto model = core::Model::load(kReverse, core::DeviceChoice::Cpu);
    core::Session session(model);
    session.analyze("abcdefgh");
    session.step();
    auto none = core::nextTokenEffect(session);
    // The same distribution by two roads (captured step by step, and one pass without capture).
    QVERIFY(none.kl < 1e-6);
    core::addGreedyOutputs(none, session);
    QCOMPARE(none.firstDifference, -1);
    QCOMPARE(QString::fromStdString(none.textFull), QStringLiteral("hgfedcba"));

    core::HeadAblation off;
    for (int h = 0; h < 4; ++h)
        off.set({core::AttentionKind::Cross, 1, h}, true);
    session.setAblation(off);
    auto e = core::nextTokenEffect(session);
    core::addGreedyOutputs(e, session);
    qInfo("every head of cross layer 1 off: KL %.4f nats; output '%s' against '%s', first difference at %d",
          e.kl, e.textAblated.c_str(), e.textFull.c_str(), e.firstDifference);
    QVERIFY(e.kl > 1e-3);
    QCOMPARE(int(e.changes.size()), 5);
    for (std::size_t i = 1; i < e.changes.size(); ++i)
        QVERIFY(std::abs(e.changes[i - 1].after - e.changes[i - 1].before) >=
                std::abs(e.changes[i].after - e.changes[i].before));
    // The probabilities really are the two distributions'.
    const auto& after = session.nextTokenLogProbs();
    QVERIFY(std::abs(std::exp(double(after[std::size_t(e.changes[0].id)])) - e.changes[0].after) < 1e-6);
    QVERIFY(e.firstDifference >= 0);
    QVERIFY(e.textAblated != e.textFull);
}

void TestAblation::sweepFindsTheHeadsThatMatter() {
    // The translation model: its heads are fewer and less alike than the reverse model's, whose every head
    // alone can go without changing a letter.
    const auto model =
        core::Model::load(ATTNSCOPE_SOURCE_DIR "/resources/models/en-es", core::DeviceChoice::Cpu);
    core::Session session(model);
    session.analyze("The old man walked to the small white house.");
    int calls = 0;
    const auto sweep = core::ablationSweep(model, session.sourceIds(), session.prefixIds(), 0, [&](int, int) {
        ++calls;
        return true;
    });
    QVERIFY(sweep.has_value());
    QCOMPARE(int(sweep->heads.size()), (3 + 3 + 3) * 4);
    QCOMPARE(calls, 36);
    const auto full = core::greedyContinuation(model, session.sourceIds(), session.prefixIds(), {});
    QCOMPARE(sweep->baseline, model->targetTokenizer().detokenize(full));
    QCOMPARE(sweep->positions, int(full.size()));
    const core::HeadEffect* top = nullptr;
    for (const auto& h : sweep->heads) {
        QVERIFY(h.meanKl >= 0.0 && h.maxKl >= h.meanKl);
        if (!top || h.meanKl > top->meanKl)
            top = &h;
    }
    qInfo("sweep over %d heads, %d positions of '%s': largest mean KL %.4f nats (%s)",
          int(sweep->heads.size()), sweep->positions, sweep->baseline.c_str(), top->meanKl,
          core::toString(top->head).c_str());
    QVERIFY(top->meanKl > 0.01);
    // The sweep's figure for that head is the KL of a run with it off, teacher-forced along the baseline.
    core::HeadAblation off;
    off.set(top->head, true);
    core::Session alone(model);
    alone.setAblation(off);
    alone.analyze("The old man walked to the small white house.");
    const auto effect = core::nextTokenEffect(alone);
    QVERIFY(effect.kl <= top->maxKl + 1e-6);
    // Stopped after the third head: nothing.
    const auto stopped = core::ablationSweep(model, session.sourceIds(), session.prefixIds(), 0,
                                             [](int done, int) { return done < 3; });
    QVERIFY(!stopped.has_value());
    // The positions the run may use bound both sides: a source longer than them is refused, naming them.
    const auto src = session.sourceIds();
    try {
        core::ablationSweep(model, src, session.prefixIds(), 0, {}, 6);
        QFAIL("a source of more tokens than the positions given was swept");
    } catch (const core::InputError& e) {
        qInfo("sweep within 6 positions: %s", e.what());
        QVERIFY(QString::fromUtf8(e.what()).contains(QStringLiteral("6")));
    }
    const auto bounded = core::ablationSweep(model, src, session.prefixIds(), 0, {}, int64_t(src.size()));
    QVERIFY(bounded.has_value());
    QCOMPARE(bounded->baseline, sweep->baseline); // the output fits in the source's length here
}

void TestAblation::valueWeightedRowsSumToOne() {
    const auto model = core::Model::load(kLanguageModel, core::DeviceChoice::Cpu);
    core::Session session(model);
    session.analyze("the weather in the winter is");
    session.step();
    auto snap = session.snapshot();
    core::addValueWeighted(snap);
    const auto& w = snap.decoderWeighted;
    const auto& a = snap.decoder;
    const auto& n = snap.decoderNorms;
    QCOMPARE(w.queries, a.queries);
    double worstSum = 0.0, worstValue = 0.0;
    for (int l = 0; l < w.layers; ++l)
        for (int h = 0; h < w.heads; ++h)
            for (int q = 0; q < w.queries; ++q) {
                double sum = 0.0, total = 0.0;
                for (int k = 0; k < w.keys; ++k) {
                    sum += w.at(l, h, q, k);
                    total += double(a.at(l, h, q, k)) * n.at(l, h, k);
                    if (k > q)
                        QCOMPARE(w.at(l, h, q, k), 0.0f); // still causal
                }
                worstSum = std::max(worstSum, std::abs(sum - 1.0));
                for (int k = 0; k <= q; ++k)
                    worstValue =
                        std::max(worstValue, std::abs(double(w.at(l, h, q, k)) -
                                                      double(a.at(l, h, q, k)) * n.at(l, h, k) / total));
            }
    qInfo("value-weighted rows: sums within %.3g of 1, cells within %.3g of α·‖v W_O‖ / Σ", worstSum,
          worstValue);
    QVERIFY(worstSum < 1e-5);
    QVERIFY(worstValue < 1e-6);
    QVERIFY(snap.encoderWeighted.empty()); // a decoder-only model has no encoder

    // A dense block past the dense limit (built by hand) gets compact storage of its own, filled right.
    const auto limit = core::AttentionBlock::denseLimit();
    core::AttentionBlock::setDenseLimit(1);
    const auto compact = core::valueWeighted(a, n);
    core::AttentionBlock::setDenseLimit(limit);
    QVERIFY(!a.compact() && compact.compact() && compact.triangular);
    double worstCompact = 0.0;
    for (int l = 0; l < w.layers; ++l)
        for (int h = 0; h < w.heads; ++h)
            for (int q = 0; q < w.queries; ++q)
                for (int k = 0; k < w.keys; ++k)
                    worstCompact =
                        std::max(worstCompact, double(std::abs(compact.at(l, h, q, k) - w.at(l, h, q, k))));
    qInfo("a dense block weighted into compact storage: within %.3g of the dense result", worstCompact);
    QVERIFY(worstCompact < 1e-3); // float16: three significant digits
}

void TestAblation::valueNormsFollowStepsAndBack() {
    // A run keeps each key's value norm once computed and adds only the keys fed since; after steps, a step
    // back and another token in its place, the norms must be those of a fresh run over the same tokens.
    const auto model =
        core::Model::load(ATTNSCOPE_SOURCE_DIR "/resources/models/en-es", core::DeviceChoice::Cpu);
    core::Session session(model);
    session.analyze("The old man walked to the small white house.");
    double worst = 0.0;
    int checks = 0;
    const auto check = [&] {
        const auto snap = session.snapshot();
        core::Session fresh(model);
        fresh.analyzeIds(session.sourceIds(), session.targetIds());
        const auto ref = fresh.snapshot();
        for (const auto kind :
             {core::AttentionKind::Encoder, core::AttentionKind::Decoder, core::AttentionKind::Cross}) {
            const auto& n = snap.valueNorms(kind);
            const auto& r = ref.valueNorms(kind);
            QVERIFY(!n.empty());
            QCOMPARE(n.layers, r.layers);
            QCOMPARE(n.heads, r.heads);
            QCOMPARE(n.keys, r.keys);
            for (std::size_t i = 0; i < n.data.size(); ++i)
                worst = std::max(worst,
                                 std::abs(double(n.data[i]) - r.data[i]) / std::max(1.0, double(r.data[i])));
        }
        ++checks;
    };
    check();
    for (int i = 0; i < 3; ++i) {
        session.step();
        check();
    }
    const auto dropped = session.targetIds().back();
    QVERIFY(session.back());
    check();
    session.force(dropped == 5 ? 6 : 5); // another token where the dropped one was
    check();
    session.step();
    check();
    qInfo("%d points of a run (steps, a step back, a forced token): value norms within %.3g (relative) of a "
          "fresh run's",
          checks, worst);
    QCOMPARE(session.decodedCount(), int64_t(4));
    QVERIFY(worst < 1e-5);
}

ATTNSCOPE_GUILESS_MAIN(TestAblation)
#include "test_ablation.moc"
