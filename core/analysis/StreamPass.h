#pragma once
// One forward pass over a run's tokens that records the residual stream at every point (after the
// embeddings, after each sublayer): what the logit lens and direct logit attribution both read. Core's own
// (it carries torch types); callers outside core/ see LogitLens and Attribution only.
//
// Shapes: T positions read, S source length, C channels.

#include "core/model/HeadAblation.h"
#include "core/model/Model.h"
#include "core/run/AttentionSnapshot.h"

#include <torch/types.h>

#include <string>
#include <vector>

namespace core {

struct StreamPass {
    /// The stream read: an encoder-only model's encoder, otherwise the decoder's (over the encoded source).
    bool encoderSide = false;
    std::vector<Token> tokens;         ///< the T tokens read
    std::vector<std::string> points;   ///< "embed", "0.attn", "0.cross", "0.mlp", …
    std::vector<torch::Tensor> stream; ///< [point] (1, T, C)
    torch::Tensor memory; ///< (1, S, C): the encoder's output a decoder read; undefined without one
    std::vector<bool> sourceVisible; ///< S: false for a padding key of the source; empty: every key seen
};

/// Why a model has no stream to read through an output (see whyNoLogitLens), or empty.
std::string whyNoStreamReading(const ModelConfig& config);

/// The pass over snap's tokens (the decoder's input, or an encoder-only model's text), heads of `ablation`
/// off. Throws InputError for a model whyNoStreamReading refuses and for a snapshot with no tokens; `what`
/// names the analysis in the message ("no logit lens").
StreamPass recordStream(const Model& model, const AttentionSnapshot& snap, const HeadAblation& ablation,
                        const std::string& what);

} // namespace core
