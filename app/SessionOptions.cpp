#include "app/SessionOptions.h"

#include <vector>

const char* const kSessionOptionsHelp =
    R"(  --model DIR      the model directory
  --src TEXT       source text; the model's special tokens are added (<bos> ... <eos>)
  --src-ids LIST   source token ids, used exactly as given (no specials added)
  --tgt TEXT       target prefix, teacher-forced (<bos> is put in front)
  --tgt-ids LIST   target ids, used exactly as given
  --greedy N       decode up to N tokens greedily (stops at <eos>) and use the final state
  --device D       auto (CUDA when available), cpu or cuda
  --ablate LIST    switch heads off (their output zeroed before W_O): LAYER:HEAD[,LAYER:HEAD…] of
                   --ablate-kind, counting from 0; an item may name its own kind (cross:1:3)
  --ablate-kind K  encoder, decoder (masked self-attention; the default) or cross
  --past-max-len   read up to 4 x max_len tokens where positions extend by formula (sinusoidal, rotary);
                   positions past max_len were never seen in training
For decoder-only models --src/--src-ids is the prompt. A --src longer than the model reads is cut there;
"text_tokens" and "read_tokens" in the output tell.
)";

namespace {

std::vector<int64_t> toIds(const std::vector<long long>& v) {
    return {v.begin(), v.end()};
}

} // namespace

StartedSession startSession(const Args& a) {
    if (!a.has("--model"))
        throw UsageError("--model DIR is required");
    if (a.has("--src") == a.has("--src-ids"))
        throw UsageError("give exactly one of --src and --src-ids");
    if (int(a.has("--tgt")) + int(a.has("--tgt-ids")) + int(a.has("--greedy")) > 1)
        throw UsageError("give at most one of --tgt, --tgt-ids and --greedy");
    const auto greedy = a.getInt("--greedy", 0);
    if (greedy < 0)
        throw UsageError("--greedy expects N >= 0");

    StartedSession s;
    s.model = core::Model::load(a.get("--model"), core::parseDevice(a.get("--device", "auto")));
    const auto& model = s.model;
    if (!model->config().hasEncoder() && (a.has("--tgt") || a.has("--tgt-ids")))
        throw UsageError("a decoder-only model takes its prompt through --src or --src-ids");
    if (!model->config().hasDecoder() && (a.has("--tgt") || a.has("--tgt-ids") || greedy > 0))
        throw UsageError("an encoder-only model reads --src and decodes nothing: --tgt, --tgt-ids and "
                         "--greedy do not apply");

    s.session = std::make_unique<core::Session>(model);
    auto& session = *s.session;
    if (a.has("--past-max-len") && !model->config().canPassMaxLen())
        throw UsageError("--past-max-len: this model's positions are learned and end at max_len " +
                         std::to_string(model->config().maxLen));
    session.setPastMaxLen(a.has("--past-max-len"));
    if (a.has("--ablate-kind") && !a.has("--ablate"))
        throw UsageError(
            "--ablate-kind names the kind of the heads --ablate LIST switches off; --ablate is missing");
    if (a.has("--ablate")) {
        const auto kindName = a.get("--ablate-kind", model->config().hasDecoder() ? "decoder" : "encoder");
        const auto kind = core::attentionKindNamed(kindName);
        if (!kind || *kind == core::AttentionKind::Pooling)
            throw UsageError("--ablate-kind \"" + kindName + "\" is not one of encoder, decoder, cross");
        core::HeadAblation ablation;
        core::addAblation(ablation, a.get("--ablate"), *kind, model->config());
        session.setAblation(ablation);
    }
    s.srcText = a.get("--src");
    if (a.has("--src")) {
        if (s.srcText.empty())
            throw UsageError("--src is empty");
        if (a.has("--tgt-ids")) {
            std::vector<int64_t> src;
            for (const auto& t : model->sourceTokens(s.srcText))
                src.push_back(t.id);
            session.analyzeIds(src, toIds(parseIdList("--tgt-ids", a.get("--tgt-ids"))));
        } else {
            session.analyze(s.srcText, a.get("--tgt"));
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
        s.srcText = model->sourceTokenizer().detokenize(src);
    }
    for (long long i = 0; i < greedy && session.step() >= 0; ++i) {
    }
    return s;
}
