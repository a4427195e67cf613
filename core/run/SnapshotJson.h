#pragma once
// The dump format: one JSON document per snapshot, shared by `attnscope dump` and the GUI's export.

#include "core/run/AttentionSnapshot.h"
#include "core/run/Sampler.h"
#include "core/text/Vocabulary.h"

#include <ostream>
#include <string>

namespace core {

/// {"model", "src_text", "src_tokens", "tgt_text", "tgt_tokens", "attention": {"encoder", "decoder",
/// "cross"}, "ablated" (the heads switched off, or "none"), "value_norms": {kind: [L][H][K]},
/// ["value_weighted": {kind: [L][H][Q][K]},] "next_token_logprobs"}; floats as the shortest text that reads
/// back exactly, whatever the locale; absent kinds are left out. `extraFields`, when given, is written as
/// more members of the top-level object (pre-formatted JSON members without braces, e.g. `"selection":
/// {...}`), so exports can say which head they hold.
void writeSnapshotJson(std::ostream& out, const AttentionSnapshot& snap, const std::string& srcText,
                       const std::string& tgtText, const std::string& extraFields = {});

/// What reproduces a run: where the model came from and which weights, how it decoded, how far.
struct RunInfo {
    std::string modelDir;      ///< empty for a model made in memory
    std::string weightsSha256; ///< of model.safetensors, hex; empty when unknown
    SamplingSettings sampling;
    int64_t step = 0; ///< tokens decoded since the analysis
};

/// Extra members for writeSnapshotJson: `"run": {"model_dir", "weights_sha256", "decode": {"mode":
/// "greedy"|"sampled", "temperature", "top_k", "top_p", "seed"}, "step"}` and `"next_token_vocab"`, the
/// vocabulary's strings in id order (what each entry of next_token_logprobs is).
std::string runFields(const RunInfo& info, const Vocabulary& vocab);

/// The `count` most likely tokens of a distribution as a JSON list, most likely first:
/// `[{"token", "id", "probability"}]` (an encoder-only model's candidates for its mask).
std::string topTokensJson(const std::vector<float>& logProbs, const Vocabulary& vocab, int count);

/// An extra member holding each layer's mean over the heads of a block: `"layer_mean": {"<kind>":
/// [L][queries][keys]}`.
std::string layerMeanField(AttentionKind kind, const AttentionBlock& block);

} // namespace core
