#include "app/Args.h"
#include "app/Commands.h"
#include "app/RunCommand.h"
#include "app/SessionOptions.h"

#include "core/analysis/ValueWeighting.h"
#include "core/model/Model.h"
#include "core/run/Session.h"
#include "core/run/SnapshotJson.h"
#include "ui/run/ModelFingerprint.h"

#include <sstream>

namespace {

const std::string kDumpHelp = std::string(R"(usage: attnscope dump --model DIR (--src TEXT | --src-ids 1,2,3)
                      [--tgt TEXT | --tgt-ids 1,2,3 | --greedy N] [--out FILE.json] [--device auto|cpu|cuda]
                      [--ablate L:H[,L:H…] [--ablate-kind encoder|decoder|cross]] [--value-weighted]

Runs the model once and writes every attention weight as JSON (to stdout without --out):
  {"model", "src_text", "src_tokens", "tgt_text", "tgt_tokens",
   "attention": {"encoder": [L][H][S][S], "decoder": [L][H][T][T], "cross": [L][H][T][S],
                 "pooling": [1][1][1][S]},
   ["classification": {"class", "probability", "classes", "scores", "weights", "contributions", …},]
   "ablated": "none" or the heads switched off, "value_norms": {kind: [L][H][K]},
   ["value_weighted": {kind: [L][H][Q][K]},] "next_token_logprobs": [V]}
An encoder-only model (BERT, RoBERTa, DistilBERT) has "encoder" only and "decodes": false; where the text
holds a mask token and the model its masked-LM head, "mask_row" is the first mask's source row,
next_token_logprobs the head's distribution there, and "mask_top" its 10 most likely tokens
[{"token", "id", "probability"}].
value_norms: ‖v_j W_O^(h)‖, the size of what key j hands to the output through head h per unit of weight.

)") + kSessionOptionsHelp + R"(  --out FILE       write there (atomically) instead of stdout
  --value-weighted add "value_weighted": each weight times its key's value norm, rows renormalised
Only the kinds the model has are present: "decoder" for decoder-only models, "cross" for a GRU translator,
"pooling" (and "classification") for an attention-pooling classifier.
Exit status: 0 on success, 2 on bad arguments or input.
)";

} // namespace

int runDump(const std::vector<std::string>& argv) {
    CommandOptions options{{std::begin(kSessionOptions), std::end(kSessionOptions)},
                           {std::begin(kSessionFlags), std::end(kSessionFlags)}};
    options.valued.insert("--out");
    options.flags.insert("--value-weighted");
    return runCommand("dump", kDumpHelp.c_str(), options, argv, [&](const Args& a) {
        const auto started = startSession(a);
        const auto& model = started.model;
        const auto& session = *started.session;
        const bool enc = model->config().hasEncoder();
        auto snap = session.snapshot();
        if (a.has("--value-weighted"))
            core::addValueWeighted(snap);
        std::vector<int64_t> tgtIds;
        for (const auto& t : snap.tgtTokens)
            tgtIds.push_back(t.id);
        const auto tgtText = enc ? model->targetTokenizer().detokenize(tgtIds) : session.decodedText();
        std::ostringstream json;
        core::RunInfo info;
        info.modelDir = model->directory();
        info.weightsSha256 = ui::ModelFingerprint::weightsSha256(*model).toStdString();
        info.sampling = session.sampling();
        info.step = session.decodedCount();
        auto fields = core::runFields(info, model->targetTokenizer().vocab());
        if (snap.maskRow >= 0)
            fields += ",\n\"mask_top\": " +
                      core::topTokensJson(snap.nextTokenLogProbs, model->targetTokenizer().vocab(), 10);
        core::writeSnapshotJson(json, snap, started.srcText, tgtText, fields);
        writeOutput(a, json.str());
        return 0;
    });
}
