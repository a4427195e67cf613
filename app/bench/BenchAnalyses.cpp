#include "app/bench/BenchAnalyses.h"

#include "app/bench/BenchModels.h"

#include "core/analysis/AblationEffects.h"
#include "core/analysis/AttentionFlow.h"
#include "core/analysis/Attribution.h"
#include "core/analysis/LogitLens.h"
#include "core/analysis/Rollout.h"
#include "core/analysis/ValueWeighting.h"
#include "core/base/Blas.h"
#include "core/base/Errors.h"
#include "core/run/Session.h"

#include <cstdio>
#include <vector>

namespace {

using core::AttentionKind;

std::string shapeOf(const core::Model& model) {
    const auto& c = model.config();
    return c.name + " (" + c.shape() + ")";
}

Row row(const std::string& id, const std::string& label, const std::vector<double>& ms) {
    return {id, label, summarize(ms)};
}

// Times body over the plan; ms per run.
template <class Body> std::vector<double> timed(const Plan& plan, Body body) {
    return repeat(plan, [&] {
        const auto t0 = BenchClock::now();
        body();
        return msSince(t0);
    });
}

AnalysesCase rolloutGpt2(const Plan& plan, int threads,
                         const std::function<void(const std::string&)>& progress) {
    const auto size = makeGpt2Size(1024, threads);
    const auto& c = size.model->config();
    AnalysesCase out{"rollout-gpt2", shapeOf(*size.model), 1024, {}, {}};
    progress("gpt2: analysing 1024 tokens");
    core::Session session(size.model);
    const auto t0 = BenchClock::now();
    session.analyzeIds(benchIds(1024, c.tgtVocabSize, 1), {});
    const auto snap = session.snapshot();
    const double analysis = msSince(t0);
    progress("gpt2: rollout");
    const auto rollout = timed(plan, [&] { core::attentionRollout(snap, AttentionKind::Decoder); });
    progress("gpt2: value weighting");
    const auto weighted = timed(plan, [&] {
        auto copy = snap;
        core::addValueWeighted(copy);
    });
    out.rows = {row("analysis", "the analysis (once, not a target)", {analysis}),
                row("rollout", "rollout of decoder self-attention", rollout),
                row("value-weighted", "value-weighted blocks of every kind", weighted)};
    out.targets.push_back({"rollout", "median rollout <= 100 ms", 100.0, out.rows[1].stat.median, "ms"});
    return out;
}

// The logit lens at GPT-2 small's shape: 1 + 2 x 12 readings of 64 positions, each an unembedding of 64 x 768
// by 768 x 50,257 and a log-softmax, ranks and the top 10 over the vocabulary; beside it the same
// multiply-adds as one sgemm, the bound no lens that reads every token's logit can beat on this machine; and
// direct logit attribution of one position (its pass over the 64 tokens, then every head's part).
AnalysesCase lensGpt2(const Plan& plan, int threads,
                      const std::function<void(const std::string&)>& progress) {
    constexpr int kLength = 64;
    const auto size = makeGpt2Size(kLength, threads);
    const auto& c = size.model->config();
    AnalysesCase out{"lens-gpt2", shapeOf(*size.model), kLength, {}, {}};
    progress("gpt2: the logit lens of 64 tokens");
    core::Session session(size.model);
    session.analyzeIds(benchIds(kLength, c.tgtVocabSize, 1), {});
    const auto snap = session.snapshot();
    const auto lens = timed(plan, [&] { core::logitLens(*size.model, snap); });
    out.rows.push_back(row("lens", "the whole lens, top 10 of every reading", lens));
    if (core::blas::available()) {
        progress("gpt2: the unembedding alone");
        const int readings = 1 + 2 * c.decoderLayers, m = readings * kLength;
        const std::vector<float> a(std::size_t(m) * std::size_t(c.dModel), 0.01f),
            b(std::size_t(c.tgtVocabSize) * std::size_t(c.dModel), 0.02f);
        std::vector<float> logits(std::size_t(m) * std::size_t(c.tgtVocabSize));
        const auto gemm = timed(plan, [&] {
            core::blas::gemm(false, true, m, c.tgtVocabSize, c.dModel, 1.0f, a.data(), c.dModel, b.data(),
                             c.dModel, 0.0f, logits.data(), c.tgtVocabSize);
        });
        out.rows.push_back(row("unembedding", "its unembedding alone, one sgemm (the bound)", gemm));
    }
    progress("gpt2: attribution of the last position");
    const auto attribution =
        timed(plan, [&] { core::directLogitAttribution(*size.model, snap, kLength - 1); });
    out.rows.push_back(row("attribution", "direct logit attribution of the last position", attribution));
    out.targets.push_back({"lens", "median lens <= 300 ms", 300.0, out.rows[0].stat.median, "ms"});
    out.targets.push_back(
        {"attribution", "median attribution <= 50 ms", 50.0, out.rows.back().stat.median, "ms"});
    return out;
}

AnalysesCase ablationDefault(const std::string& dir, const Plan& plan, int threads,
                             const std::function<void(const std::string&)>& progress) {
    const auto size = makeBenchSize("default", dir, 64, threads);
    const auto& c = size.model->config();
    AnalysesCase out{"ablation-default", shapeOf(*size.model), 64, {}, {}};
    progress("default: a head switched off at T = 64");
    core::Session session(size.model);
    session.analyzeIds(benchIds(64, c.srcVocabSize, 1), benchIds(64, c.tgtVocabSize, 2));
    // Each run switches one more head off, or all back on, as clicks would: never the set before.
    int i = 0;
    const auto rerun = timed(plan, [&] {
        core::HeadAblation off;
        if (++i % 5 != 0)
            off.set({AttentionKind::Cross, i % c.decoderLayers, i % c.heads}, true);
        session.setAblation(off);
        auto snap = session.snapshot();
        if (!off.empty())
            core::nextTokenEffect(session);
    });
    core::HeadAblation off;
    off.set({AttentionKind::Cross, c.decoderLayers - 1, 0}, true);
    session.setAblation(off);
    const auto greedy = timed(plan, [&] {
        core::AblationEffect e;
        core::addGreedyOutputs(e, session, 64);
    });
    progress("default: value weighting at T = 64");
    const auto snap = session.snapshot();
    const auto weighted = timed(plan, [&] {
        auto copy = snap;
        core::addValueWeighted(copy);
    });
    progress("default: flow at T = 64");
    Plan few{1, std::max(3, plan.runs / 4)};
    const auto flowEncoder = timed(few, [&] { core::attentionFlow(snap, AttentionKind::Encoder); });
    const auto flowCross = timed(few, [&] { core::attentionFlow(snap, AttentionKind::Cross); });
    const auto rollout = timed(plan, [&] { core::attentionRollout(snap, AttentionKind::Cross); });
    progress("default: sweep");
    const auto sweep = timed(Plan{0, 1}, [&] {
        core::ablationSweep(size.model, benchIds(16, c.srcVocabSize, 3),
                            {size.model->targetTokenizer().vocab().bos()}, 16);
    });
    out.rows = {row("rerun", "head off: run again, snapshot, next-token effect", rerun),
                row("greedy", "greedy outputs with and without (64 tokens each)", greedy),
                row("value-weighted", "value-weighted blocks of every kind", weighted),
                row("rollout", "rollout of cross-attention", rollout),
                row("flow-encoder", "flow of encoder self-attention, 64 x 64", flowEncoder),
                row("flow-cross", "flow of cross-attention, 64 x 64", flowCross),
                row("sweep", "sweep of every head, 16-token source and output", sweep)};
    out.targets.push_back({"rerun", "median re-run <= 20 ms", 20.0, out.rows[0].stat.median, "ms"});
    return out;
}

} // namespace

AnalysesReport measureAnalyses(const std::string& defaultModelDir, const Plan& plan, int threads,
                               const std::function<void(const std::string&)>& progress) {
    AnalysesReport r;
    r.plan = plan;
    r.cases.push_back(ablationDefault(defaultModelDir, plan, threads, progress));
    r.cases.push_back(rolloutGpt2(plan, threads, progress));
    r.cases.push_back(lensGpt2(plan, threads, progress));
    return r;
}

void printText(const AnalysesReport& r) {
    std::printf(
        "   times in ms as median [min-max] of %d timed runs after %d warm-up (flow: a quarter of them, "
        "the sweep once).\n\n",
        r.plan.runs, r.plan.warmup);
    for (const auto& c : r.cases) {
        std::printf("%s, T=%d: %s\n", c.id.c_str(), c.length, c.model.c_str());
        for (const auto& row : c.rows)
            std::printf("  %-52s %s\n", row.label.c_str(), cellText(row).c_str());
        for (const auto& t : c.targets)
            std::printf("  target: %-30s %s%s\n", t.label.c_str(), number(t.value).c_str(),
                        t.met() ? " (met)" : " (missed)");
    }
}

nlohmann::ordered_json toJson(const AnalysesReport& r) {
    nlohmann::ordered_json j;
    j["warmup"] = r.plan.warmup;
    j["runs"] = r.plan.runs;
    j["cases"] = nlohmann::ordered_json::array();
    for (const auto& c : r.cases) {
        auto targets = nlohmann::ordered_json::array();
        for (const auto& t : c.targets)
            targets.push_back({{"id", t.id},
                               {"label", t.label},
                               {"limit", t.limit},
                               {"value", t.value},
                               {"unit", t.unit},
                               {"met", t.met()}});
        j["cases"].push_back({{"id", c.id},
                              {"model", c.model},
                              {"T", c.length},
                              {"rows", toJson(c.rows)},
                              {"targets", targets}});
    }
    return j;
}
