#include "Args.h"
#include "Commands.h"
#include "RunCommand.h"

#include "core/base/Files.h"
#include "core/model/Model.h"
#include "core/run/Session.h"
#include "core/run/SnapshotJson.h"

#include <iostream>
#include <sstream>

namespace {

const char* kDumpHelp = R"(usage: attnscope dump --model DIR (--src TEXT | --src-ids 1,2,3)
                      [--tgt TEXT | --tgt-ids 1,2,3 | --greedy N] [--out FILE.json] [--device auto|cpu|cuda]

Runs the model once and writes every attention weight as JSON (to stdout without --out):
  {"model", "src_text", "src_tokens", "tgt_text", "tgt_tokens",
   "attention": {"encoder": [L][H][S][S], "decoder": [L][H][T][T], "cross": [L][H][T][S]},
   "next_token_logprobs": [V]}

  --src TEXT       source text; the model's special tokens are added (<bos> ... <eos>)
  --src-ids LIST   source token ids, used exactly as given (no specials added)
  --tgt TEXT       target prefix, teacher-forced (<bos> is put in front)
  --tgt-ids LIST   target ids, used exactly as given
  --greedy N       decode up to N tokens greedily (stops at <eos>) and dump the final state
  --out FILE       write there (atomically) instead of stdout
  --device D       auto (CUDA when available), cpu or cuda
For decoder-only models --src/--src-ids is the prompt and only "decoder" attention is present.
Exit status: 0 on success, 2 on bad arguments or input.
)";

std::vector<int64_t> toIds(const std::vector<long long>& v) {
    return {v.begin(), v.end()};
}

} // namespace

int runDump(const std::vector<std::string>& argv) {
    return runCommand(
        "dump", kDumpHelp,
        {{"--model", "--src", "--src-ids", "--tgt", "--tgt-ids", "--greedy", "--out", "--device"}, {}}, argv,
        [&](const Args& a) {
            if (!a.has("--model"))
                throw UsageError("--model DIR is required");
            if (a.has("--src") == a.has("--src-ids"))
                throw UsageError("give exactly one of --src and --src-ids");
            if (int(a.has("--tgt")) + int(a.has("--tgt-ids")) + int(a.has("--greedy")) > 1)
                throw UsageError("give at most one of --tgt, --tgt-ids and --greedy");
            const auto greedy = a.getInt("--greedy", 0);
            if (greedy < 0)
                throw UsageError("--greedy expects N >= 0");

            const auto model =
                core::Model::load(a.get("--model"), core::parseDevice(a.get("--device", "auto")));
            const bool enc = model->config().hasEncoder();
            if (!enc && (a.has("--tgt") || a.has("--tgt-ids")))
                throw UsageError("a decoder-only model takes its prompt through --src or --src-ids");

            core::Session session(model);
            std::string srcText = a.get("--src");
            if (a.has("--src")) {
                if (srcText.empty())
                    throw UsageError("--src is empty");
                if (a.has("--tgt-ids")) {
                    std::vector<int64_t> src;
                    for (const auto& t : model->sourceTokens(srcText))
                        src.push_back(t.id);
                    session.analyzeIds(src, toIds(parseIdList("--tgt-ids", a.get("--tgt-ids"))));
                } else {
                    session.analyze(srcText, a.get("--tgt"));
                }
            } else {
                const auto src = toIds(parseIdList("--src-ids", a.get("--src-ids")));
                std::vector<int64_t> tgt;
                if (a.has("--tgt-ids"))
                    tgt = toIds(parseIdList("--tgt-ids", a.get("--tgt-ids")));
                else if (a.has("--tgt"))
                    for (const auto& t : model->targetTokens(a.get("--tgt")))
                        tgt.push_back(t.id);
                session.analyzeIds(src, tgt);
                srcText = model->sourceTokenizer().detokenize(src);
            }
            for (long long i = 0; i < greedy && session.step() >= 0; ++i) {
            }

            const auto snap = session.snapshot();
            std::vector<int64_t> tgtIds;
            for (const auto& t : snap.tgtTokens)
                tgtIds.push_back(t.id);
            const auto tgtText = enc ? model->targetTokenizer().detokenize(tgtIds) : session.decodedText();
            std::ostringstream json;
            core::writeSnapshotJson(json, snap, srcText, tgtText);
            if (a.has("--out"))
                core::writeFileAtomically(a.get("--out"), json.str());
            else
                std::cout << json.str();
            return 0;
        });
}
