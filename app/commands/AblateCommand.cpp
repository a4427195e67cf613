// `attnscope ablate`: what switching heads off changes, as JSON: the next-token distribution at the run's
// step against the same step with every head on, the greedy output with and without; with --sweep, every
// head switched off alone.

#include "app/Args.h"
#include "app/Commands.h"
#include "app/ProgressLine.h"
#include "app/RunCommand.h"
#include "app/SessionOptions.h"

#include "core/analysis/AblationEffects.h"

#include <nlohmann/json.hpp>

namespace {

const std::string kAblateHelp =
    std::string(R"(usage: attnscope ablate --model DIR (--src TEXT | --src-ids 1,2,3) --ablate LIST
                        [--ablate-kind K] [--tgt TEXT | --greedy N] [--max-tokens N] [--out FILE.json]
       attnscope ablate --model DIR --src TEXT --sweep [--max-tokens N] [--out FILE.json]

Switches the heads of --ablate off (their output zeroed before W_O) and prints, as JSON:
  {"model", "ablated", "kl" (KL(P‖Q) in nats of the next token at the run's step: P every head on,
   Q with the heads off), "changes": [five largest probability changes {"token", "id", "before", "after"}],
   "greedy": {"full": [tokens], "ablated": [tokens], "full_text", "ablated_text", "first_difference"}}
--sweep instead switches every head of every kind off alone and prints
  {"model", "baseline" (the greedy output with every head on), "positions",
   "heads": [{"kind", "layer", "head", "mean_kl", "max_kl", "changed", "first_difference", "output"}]}
sorted by mean_kl, largest first: the KL averaged over the positions of the baseline output (teacher-forced
along it), and the greedy output with that head off.

  --max-tokens N   the greedy outputs' length at most (default: until <eos> or max_len)
  --sweep          every head alone, as above (progress on stderr)
)") +
    kSessionOptionsHelp + R"(  --out FILE       write there (atomically) instead of stdout
Exit status: 0 on success, 2 on bad arguments or input (a head the model does not have is named).
)";

nlohmann::json tokenJson(const std::vector<core::Token>& tokens) {
    auto out = nlohmann::json::array();
    for (const auto& t : tokens)
        out.push_back(t.text);
    return out;
}

nlohmann::json sweepJson(const core::Model& model, const core::AblationSweep& sweep) {
    nlohmann::json out;
    out["model"] = model.config().name;
    out["baseline"] = sweep.baseline;
    out["positions"] = sweep.positions;
    auto heads = sweep.heads;
    std::stable_sort(heads.begin(), heads.end(), [](const core::HeadEffect& a, const core::HeadEffect& b) {
        return a.meanKl > b.meanKl;
    });
    out["heads"] = nlohmann::json::array();
    for (const auto& h : heads)
        out["heads"].push_back({{"kind", core::toString(h.head.kind)},
                                {"layer", h.head.layer},
                                {"head", h.head.head},
                                {"mean_kl", h.meanKl},
                                {"max_kl", h.maxKl},
                                {"changed", h.changed},
                                {"first_difference", h.firstDifference},
                                {"output", h.output}});
    return out;
}

} // namespace

int runAblate(const std::vector<std::string>& argv) {
    CommandOptions options{{std::begin(kSessionOptions), std::end(kSessionOptions)},
                           {std::begin(kSessionFlags), std::end(kSessionFlags)}};
    options.valued.insert({"--max-tokens", "--out"});
    options.flags.insert("--sweep");
    return runCommand("ablate", kAblateHelp.c_str(), options, argv, [&](const Args& a) {
        if (a.has("--sweep") == a.has("--ablate"))
            throw UsageError("give --ablate LIST (those heads off) or --sweep (every head alone), not both");
        const auto maxTokens = a.getInt("--max-tokens", 0);
        if (maxTokens < 0)
            throw UsageError("--max-tokens expects N >= 0");
        const auto started = startSession(a);
        const auto& session = *started.session;
        nlohmann::json out;
        if (a.has("--sweep")) {
            const ProgressLine line;
            const auto sweep = core::ablationSweep(
                started.model, session.sourceIds(), session.prefixIds(), static_cast<int>(maxTokens),
                [&](int done, int total) {
                    line.show("sweep: head " + std::to_string(done) + " of " + std::to_string(total));
                    return true;
                },
                session.positions());
            line.clear();
            out = sweepJson(*started.model, *sweep);
        } else {
            auto effect = core::nextTokenEffect(session);
            core::addGreedyOutputs(effect, session, static_cast<int>(maxTokens));
            out["model"] = started.model->config().name;
            out["ablated"] = effect.heads;
            out["kl"] = effect.kl;
            out["changes"] = nlohmann::json::array();
            for (const auto& c : effect.changes)
                out["changes"].push_back(
                    {{"token", c.token}, {"id", c.id}, {"before", c.before}, {"after", c.after}});
            out["greedy"] = {{"full", tokenJson(effect.greedyFull)},
                             {"ablated", tokenJson(effect.greedyAblated)},
                             {"full_text", effect.textFull},
                             {"ablated_text", effect.textAblated},
                             {"first_difference", effect.firstDifference}};
        }
        const auto text = jsonText(out) + "\n";
        writeOutput(a, text);
        return 0;
    });
}
