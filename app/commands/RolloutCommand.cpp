// `attnscope rollout`: attention rollout (and with --flow, attention flow) of one run, as JSON: what each
// output position's final state draws from each input token once every layer's mixing is composed.

#include "app/Args.h"
#include "app/Commands.h"
#include "app/RunCommand.h"
#include "app/SessionOptions.h"

#include "core/analysis/AttentionFlow.h"
#include "core/analysis/Rollout.h"

#include <nlohmann/json.hpp>

#include <chrono>

namespace {

const std::string kRolloutHelp = std::string(
                                     R"(usage: attnscope rollout --model DIR (--src TEXT | --src-ids 1,2,3)
                         [--tgt TEXT | --tgt-ids 1,2,3 | --greedy N] [--kind encoder|decoder|cross] [--flow]
                         [--out FILE.json]

Composes the run's attention through its layers (Abnar & Zuidema, 2020) and prints, as JSON:
  {"model", "kind", "rows": [query tokens], "cols": [input tokens], "ablated",
   "rollout": {"weights": [rows][cols], "share": [rows], "current": [cols], "ms"},
   ["flow": {"weights": [rows][cols], "current": [cols], "ms"}]}
Rollout: each layer's attention averaged over its heads, plus the residual (A + I, rows renormalised),
multiplied through the layers; rows sum to 1. For cross, the decoder's dependence on the source tokens:
the encoder's rollout carried through each layer's cross-attention, with the residual stream counted as
half (the README gives the composition); "share" is each row's total before renormalising (for cross,
1 - 2^-L with L decoder layers: the composition, not the weights, sets it).
"current" is the last row: the position being decoded now. --flow adds attention flow: the maximum flow
from each input to each output through the same graph, sides of at most 64 tokens.

  --kind K         encoder, decoder or cross (default: cross for an encoder-decoder, decoder otherwise)
  --flow           add attention flow
)") + kSessionOptionsHelp + R"(  --out FILE       write there (atomically) instead of stdout
Exit status: 0 on success, 2 on bad arguments or input.
)";

double msSince(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

nlohmann::json matrixJson(const core::Matrix& m) {
    auto rows = nlohmann::json::array();
    for (int r = 0; r < m.rows; ++r)
        rows.push_back(std::vector<float>(m.row(r), m.row(r) + m.cols));
    return rows;
}

nlohmann::json tokenJson(const std::vector<core::Token>& tokens) {
    auto out = nlohmann::json::array();
    for (const auto& t : tokens)
        out.push_back(t.text);
    return out;
}

} // namespace

int runRollout(const std::vector<std::string>& argv) {
    CommandOptions options{{std::begin(kSessionOptions), std::end(kSessionOptions)},
                           {std::begin(kSessionFlags), std::end(kSessionFlags)}};
    options.valued.insert({"--kind", "--out"});
    options.flags.insert("--flow");
    return runCommand("rollout", kRolloutHelp.c_str(), options, argv, [&](const Args& a) {
        const auto started = startSession(a);
        const auto& config = started.model->config();
        const auto kindName = a.get("--kind", config.twoSided()     ? "cross"
                                              : config.hasDecoder() ? "decoder"
                                                                    : "encoder");
        const auto kind = core::attentionKindNamed(kindName);
        if (!kind || *kind == core::AttentionKind::Pooling)
            throw UsageError("--kind \"" + kindName + "\" is not one of encoder, decoder, cross");
        const auto snap = started.session->snapshot();
        nlohmann::json out;
        out["model"] = config.name;
        out["kind"] = kindName;
        out["rows"] = tokenJson(core::queryTokens(snap, *kind));
        out["cols"] = tokenJson(core::keyTokens(snap, *kind));
        out["ablated"] = snap.ablation;
        auto t0 = std::chrono::steady_clock::now();
        const auto rollout = core::attentionRollout(snap, *kind);
        const double rolloutMs = msSince(t0);
        const auto& w = rollout.weights;
        out["rollout"] = {{"weights", matrixJson(w)},
                          {"share", rollout.share},
                          {"current", std::vector<float>(w.row(w.rows - 1), w.row(w.rows - 1) + w.cols)},
                          {"ms", rolloutMs}};
        if (a.has("--flow")) {
            t0 = std::chrono::steady_clock::now();
            const auto flow = core::attentionFlow(snap, *kind);
            const auto& f = flow->weights;
            out["flow"] = {{"weights", matrixJson(f)},
                           {"current", std::vector<float>(f.row(f.rows - 1), f.row(f.rows - 1) + f.cols)},
                           {"ms", msSince(t0)}};
        }
        const auto text = jsonText(out) + "\n";
        writeOutput(a, text);
        return 0;
    });
}
