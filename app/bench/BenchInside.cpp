#include "app/bench/BenchInside.h"

#include "app/bench/BenchModels.h"

#include "core/base/Errors.h"
#include "core/run/Session.h"
#include "ui/base/QCustomPlotInclude.h"
#include "ui/base/ViewState.h"
#include "ui/inside/InsideView.h"

#include <QCoreApplication>

#include <cstdio>
#include <memory>

namespace {

using core::AttentionKind;

// The page's size in the window at 1400 × 900.
const QSize kPageSize(1380, 760);

// What the page needs of a result: the tokens, and a block of the kind with its layers and heads (the view
// state clamps the selection to them). One query and one key per head, so the timed work is the Inside
// row's and not a 600 MB snapshot's copy.
ui::RunResultPtr standInResult(const core::Session& session, AttentionKind kind) {
    const auto snap = session.snapshot();
    auto small = std::make_shared<core::AttentionSnapshot>();
    small->srcTokens = snap.srcTokens;
    small->tgtTokens = snap.tgtTokens;
    const auto& c = session.model().config();
    small->block(kind).resize(kind == AttentionKind::Encoder ? c.encoderLayers : c.decoderLayers, c.heads, 1,
                              1);
    auto r = std::make_shared<ui::RunResult>();
    r->snapshot = small;
    r->run = 1;
    return r;
}

InsideCase measureCase(const BenchSize& size, int length, const Plan& plan,
                       const std::function<void(const std::string&)>& progress) {
    const auto& model = size.model;
    const auto& c = model->config();
    const bool enc = c.hasEncoder();
    const auto kind = enc ? AttentionKind::Cross : AttentionKind::Decoder;
    InsideCase out;
    out.id = size.id;
    out.model = c.name + " (" + std::to_string(c.decoderLayers) + " decoder layers, d_model " +
                std::to_string(c.dModel) + ", " + std::to_string(c.heads) + " heads)";
    out.kind = core::toString(kind);
    out.length = length;
    progress(size.id + ": analysing " + std::to_string(length) + " tokens");
    core::Session session(model);
    if (enc)
        session.analyzeIds(benchIds(length, c.srcVocabSize, 1), benchIds(length, c.tgtVocabSize, 2));
    else
        session.analyzeIds(benchIds(length, c.tgtVocabSize, 1), {});

    ui::ViewState state;
    ui::InsideView view(&state);
    view.resize(kPageSize);
    view.show();
    state.setKind(kind);
    const auto result = standInResult(session, kind);
    state.setSnapshot(result->snapshot);
    view.setResult(result);
    QCoreApplication::processEvents();

    struct Run {
        double compute, paint;
    };
    int i = 0;
    const int layer = c.decoderLayers - 1;
    progress(size.id + ": changing rows and heads");
    const auto runs = repeat(plan, [&] {
        ++i;
        // Odd runs move the row, even runs the head, as a user clicking through them would.
        core::InsideQuery q{kind, layer, (i / 2) % c.heads, (length - 1 - 7 * ((i + 1) / 2)) % length};
        if (q.row < 0)
            q.row += length;
        state.setSelection(q.layer, q.head);
        state.setMarkedToken(Qt::Horizontal, q.row);
        const auto t0 = BenchClock::now();
        const auto inside = ui::openInside(session, q, result->run);
        const double compute = msSince(t0);
        const auto t1 = BenchClock::now();
        view.setInside(inside);
        if (view.shownInside() != inside)
            throw core::Error("the Inside page did not take the row it asked for");
        // The charts replot on queued events, as in the window; then the page paints.
        QCoreApplication::processEvents();
        view.repaint();
        return Run{compute, msSince(t1)};
    });
    out.rows = {
        {"compute", "recompute the row (worker)", summarize(runs, [](const Run& r) { return r.compute; })},
        {"paint", "draw and repaint the page", summarize(runs, [](const Run& r) { return r.paint; })},
        {"total", "row or head change, total",
         summarize(runs, [](const Run& r) { return r.compute + r.paint; })}};
    const double limit = length <= 64 ? 30.0 : 100.0;
    out.target = {"change", "median change <= " + number(limit) + " ms", limit, out.rows[2].stat.median,
                  "ms"};
    return out;
}

} // namespace

InsideReport measureInside(const std::string& defaultModelDir, const Plan& plan, int threads,
                           const std::function<void(const std::string&)>& progress) {
    InsideReport r;
    r.plan = plan;
    r.pageWidth = kPageSize.width();
    r.pageHeight = kPageSize.height();
    {
        const auto size = makeBenchSize("default", defaultModelDir, 64, threads);
        r.cases.push_back(measureCase(size, 64, plan, progress));
    }
    const auto gpt2 = makeGpt2Size(1024, threads);
    r.cases.push_back(measureCase(gpt2, 1024, plan, progress));
    return r;
}

void printText(const InsideReport& r) {
    std::printf(
        "   each run moves the row or (alternately) the head, recomputes the row as the worker does and\n"
        "   hands it to the Inside page (%dx%d) until it has repainted. Times in ms as median [min-max]\n"
        "   of %d timed runs after %d warm-up.\n\n",
        r.pageWidth, r.pageHeight, r.plan.runs, r.plan.warmup);
    for (const auto& c : r.cases) {
        std::printf("%s, T=%d, %s attention: %s\n", c.id.c_str(), c.length, c.kind.c_str(), c.model.c_str());
        for (const auto& row : c.rows)
            std::printf("  %-32s %s\n", row.label.c_str(), cellText(row).c_str());
        std::printf("  target: %-24s %s%s\n", c.target.label.c_str(), number(c.target.value).c_str(),
                    c.target.met() ? " (met)" : " (missed)");
    }
}

nlohmann::ordered_json toJson(const InsideReport& r) {
    nlohmann::ordered_json j;
    j["page"] = {r.pageWidth, r.pageHeight};
    j["warmup"] = r.plan.warmup;
    j["runs"] = r.plan.runs;
    j["cases"] = nlohmann::ordered_json::array();
    for (const auto& c : r.cases)
        j["cases"].push_back({{"id", c.id},
                              {"model", c.model},
                              {"kind", c.kind},
                              {"T", c.length},
                              {"rows", toJson(c.rows)},
                              {"target",
                               {{"id", c.target.id},
                                {"label", c.target.label},
                                {"limit", c.target.limit},
                                {"value", c.target.value},
                                {"unit", c.target.unit},
                                {"met", c.target.met()}}}});
    return j;
}
