#pragma once
// The logit lens (nostalgebraist, 2020): the residual stream at every point of a pass (after the embeddings,
// after each attention sublayer, after each MLP) read the way the model reads its last layer's, through the
// final norm and the unembedding, so the prediction can be watched forming layer by layer. The stream is the
// one the forward pass computed (recorded by nn::Capture), not a second implementation of the model.

#include "core/model/HeadAblation.h"
#include "core/model/Model.h"
#include "core/run/AttentionSnapshot.h"

#include <cstdint>
#include <string>
#include <vector>

namespace core {

/// One of a reading's most likely tokens.
struct LensCandidate {
    int64_t id = 0;
    std::string token; ///< the vocabulary's text of id
    float prob = 0.0f;
};

struct LogitLens {
    /// The points read, in the order of the pass: "embed", then "L.attn", "L.cross" (an encoder–decoder's
    /// decoder), "L.mlp" for each layer L; the last is the model's own output.
    std::vector<std::string> points;
    /// The stream read: the decoder's at every target position, or an encoder-only model's encoder at every
    /// position of its text (through its masked-LM head).
    bool encoderSide = false;
    /// Post-norm layers (BERT, Marian) end in their norm: each point is read as it is, without a final norm,
    /// and what a point holds is already the normed sum the next sublayer reads.
    bool postNorm = false;
    std::vector<Token> tokens;   ///< the token at each position read
    std::vector<int64_t> chosen; ///< [position] the token whose probability is read there
    /// [point][position]: the chosen token's log-probability, its rank (0: the most likely) and the
    /// reading's entropy in nats.
    std::vector<std::vector<float>> logprob;
    std::vector<std::vector<int64_t>> rank;
    std::vector<std::vector<float>> entropy;
    std::vector<std::vector<std::vector<LensCandidate>>> top; ///< [point][position][k], most likely first
    double ms = 0.0;
};

/// Why a model has no lens to read (a recurrent model, an encoder without a masked-LM head), or empty when
/// it has one.
std::string whyNoLogitLens(const ModelConfig& config);

/// The lens of the run in snap: its decoder's input tokens (for an encoder–decoder, over the encoded
/// source), or an encoder-only model's text. At each position the chosen token is `token` when given (≥ 0),
/// otherwise the model's own most likely next token there (for an encoder-only model, its most likely token
/// at that position). Throws InputError for a model without an output to read through (a classifier, the
/// GRU translator, an encoder without a masked-LM head), for a token outside the vocabulary, and for a
/// snapshot with nothing to read. The heads of `ablation` are off in the pass, as in the run it reads.
LogitLens logitLens(const Model& model, const AttentionSnapshot& snap, int64_t token = -1, int top = 10,
                    const HeadAblation& ablation = {});

} // namespace core
