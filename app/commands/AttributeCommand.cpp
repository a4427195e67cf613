// `attnscope attribute`: direct logit attribution at one position, as JSON: the final residual stream split
// into the embeddings, every head, every attention bias and MLP, and the norms' parts, each one's share of a
// token's logit (or of the difference of two tokens' logits), adding up to the model's own value.

#include "app/Args.h"
#include "app/Commands.h"
#include "app/RunCommand.h"
#include "app/SessionOptions.h"

#include "core/analysis/Attribution.h"
#include "core/analysis/LensJson.h"

#include <sstream>

namespace {

const std::string kAttributeHelp =
    std::string(R"(usage: attnscope attribute --model DIR (--src TEXT | --src-ids 1,2,3)
                      [--tgt TEXT | --tgt-ids 1,2,3 | --greedy N] [--position P] [--token ID]
                      [--versus ID] [--extremes K] [--out FILE.json]

Splits the residual stream at position P of the stream the logit lens reads (the decoder's input, an
encoder-only model's text; default: the last) into what wrote it, reads each part through the rest of the
model as a linear map (every norm after it frozen at the scale the run measured), and prints:
  {"model", "position", "token", "token_text", "versus", "logit", "sum", "post_norm", "reads",
   "components": [{"name", "kind", "layer", "head", "sublayer", "contribution"}], "split_gap", "ms"}
"kind" is "embed" (the embeddings with the positions), "head" (one head's output through its slice of
W_O), "head_bias" (an attention sublayer's bias), "mlp", "norm" (a norm's bias), "head_transform" (a
masked-LM head's dense bias) or "output_bias". "logit" is the model's own logit of --token (default: its
most likely next token at P), or with --versus the difference logit(token) - logit(versus); "sum" is the
components' total, equal to it up to rounding. "split_gap" is the largest difference between an attention
sublayer's output as the pass computed it and the sum of its heads and bias.

  --position P     the position read (0 … T-1; default the last)
  --token ID       the token whose logit is split (default: the model's most likely next token at P)
  --versus ID      split logit(token) - logit(versus) instead
  --extremes K     give each component the K tokens it raises and lowers most ("promotes",
                   "suppresses": [{"id", "token", "change"}]), through the same linear map
)") +
    kSessionOptionsHelp +
    R"(  --out FILE       write there (atomically) instead of stdout
Exit status: 0 on success, 2 on bad arguments or input.
)";

} // namespace

int runAttribute(const std::vector<std::string>& argv) {
    CommandOptions options{{std::begin(kSessionOptions), std::end(kSessionOptions)},
                           {std::begin(kSessionFlags), std::end(kSessionFlags)}};
    options.valued.insert({"--position", "--token", "--versus", "--extremes", "--out"});
    return runCommand("attribute", kAttributeHelp.c_str(), options, argv, [&](const Args& a) {
        const auto started = startSession(a);
        const auto ids = [&](const char* opt) -> int64_t {
            if (!a.has(opt))
                return -1;
            const auto v = a.getInt(opt, 0);
            if (v < 0)
                throw UsageError(std::string(opt) + " must be a token id (0 or more), not " + a.get(opt));
            return v;
        };
        const auto token = ids("--token"), versus = ids("--versus");
        if (versus >= 0 && token < 0)
            throw UsageError("--versus needs --token: the difference of which two tokens");
        const auto snap = started.session->snapshot();
        const bool enc = !started.model->config().hasDecoder();
        const auto positions = static_cast<int64_t>((enc ? snap.srcTokens : snap.tgtTokens).size());
        const auto position = a.has("--position") ? a.getInt("--position", 0) : positions - 1;
        if (position < 0 || position >= positions)
            throw UsageError("--position must be between 0 and " + std::to_string(positions - 1) + ", not " +
                             a.get("--position"));
        const auto extremes = a.getInt("--extremes", 0);
        if (extremes < 0 || extremes > 100)
            throw UsageError("--extremes must be between 0 and 100, not " + a.get("--extremes"));
        const auto r =
            core::directLogitAttribution(*started.model, snap, static_cast<int>(position), token, versus,
                                         started.session->ablation(), static_cast<int>(extremes));
        const auto& vocab =
            (enc ? started.model->sourceTokenizer() : started.model->targetTokenizer()).vocab();
        std::ostringstream out;
        core::writeAttributionJson(out, started.model->config().name, r, vocab);
        writeOutput(a, out.str());
        return 0;
    });
}
