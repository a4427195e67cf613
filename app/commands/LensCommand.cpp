// `attnscope lens`: the logit lens of one run, as JSON: the residual stream after the embeddings and after
// every sublayer, read through the model's final norm and unembedding, at every position.

#include "app/Args.h"
#include "app/Commands.h"
#include "app/RunCommand.h"
#include "app/SessionOptions.h"

#include "core/analysis/LensJson.h"
#include "core/analysis/LogitLens.h"

#include <sstream>

namespace {

const std::string kLensHelp = std::string(R"(usage: attnscope lens --model DIR (--src TEXT | --src-ids 1,2,3)
                      [--tgt TEXT | --tgt-ids 1,2,3 | --greedy N] [--token ID] [--top K] [--out FILE.json]

Reads the residual stream at every point of the pass (after the embeddings, after each attention
sublayer, after each MLP) through the model's own final norm and unembedding (an encoder-only model's
masked-LM head), at every position of the decoder's input (an encoder-only model's text), and prints:
  {"model", "points": [names, "embed" first, the model's output last], "positions", "tokens",
   "chosen": [position -> token id], "logprob": [point][position], "rank": [point][position],
   "entropy": [point][position], "top": [point][position][K x {"id", "token", "prob"}],
   "post_norm", "reads", "ms"}
At each position the chosen token is --token when given, otherwise the model's own most likely next
token there; "logprob" and "rank" (0: the most likely) are that token's. At the last point "logprob" is
the model's own next-token log-probability. A post-norm model (BERT, Marian) has no final norm: each
point is read as it is, and holds the normed sum its next sublayer reads.

  --token ID       read this token's probability at every position
  --top K          candidates kept per reading (default 10)
)") + kSessionOptionsHelp +
                              R"(  --out FILE       write there (atomically) instead of stdout
Exit status: 0 on success, 2 on bad arguments or input.
)";

} // namespace

int runLens(const std::vector<std::string>& argv) {
    CommandOptions options{{std::begin(kSessionOptions), std::end(kSessionOptions)},
                           {std::begin(kSessionFlags), std::end(kSessionFlags)}};
    options.valued.insert({"--token", "--top", "--out"});
    return runCommand("lens", kLensHelp.c_str(), options, argv, [&](const Args& a) {
        const auto started = startSession(a);
        const auto token = a.has("--token") ? a.getInt("--token", 0) : -1;
        if (a.has("--token") && token < 0)
            throw UsageError("--token must be a token id (0 or more), not " + a.get("--token"));
        const auto top = a.getInt("--top", 10);
        if (top < 1 || top > 1000)
            throw UsageError("--top must be between 1 and 1000, not " + a.get("--top"));
        const auto snap = started.session->snapshot();
        const auto lens =
            core::logitLens(*started.model, snap, token, static_cast<int>(top), started.session->ablation());
        std::ostringstream out;
        core::writeLensJson(out, started.model->config().name, lens);
        writeOutput(a, out.str());
        return 0;
    });
}
