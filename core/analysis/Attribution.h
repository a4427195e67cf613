#pragma once
// Direct logit attribution: the final residual stream at one position split into what wrote it (the
// embeddings with the positions, every head's output through its slice of W_O, each attention sublayer's
// bias, each MLP's output), each read through the rest of the model as a linear map (every norm after it
// frozen at the scale the run measured, the usual linearisation; a masked-LM head's activation frozen at its
// measured gate), so that the contributions to a token's logit, or to the difference of two tokens' logits,
// add up to the model's own value. The stream and the heads' outputs are the ones the forward pass and the
// Inside view's recomputation give, not a second implementation of the model.

#include "core/model/HeadAblation.h"
#include "core/model/Model.h"
#include "core/run/AttentionSnapshot.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace core {

struct AttributionComponent {
    std::string name; ///< "embed", "3.attn.5" (layer 3, head 5), "3.attn.bias", "3.cross.2", "3.mlp", …
    /// "embed", "head", "head_bias", "mlp", "norm" (a norm's bias, and what a post-norm model's norm adds
    /// after centring), "output_bias" (the output layer's bias), "head_transform" (a masked-LM head's dense
    /// bias).
    std::string kind;
    int layer = -1;       ///< −1 for the embeddings and the final pieces
    int head = -1;        ///< heads only
    std::string sublayer; ///< "attn", "cross", "mlp", or empty
    double contribution = 0.0;
    /// With `extremes` asked for: the tokens this component's part raises and lowers most, through the
    /// same linear map (its direct effect on every logit), largest first: {id, change of the logit}.
    std::vector<std::pair<int64_t, float>> promotes, suppresses;
};

struct Attribution {
    int position = 0;
    int64_t token = 0;
    int64_t versus = -1; ///< −1: the token's logit itself; otherwise logit(token) − logit(versus)
    double logit = 0.0;  ///< the model's own value (or difference)
    double sum = 0.0;    ///< the components' total
    bool postNorm = false;
    bool encoderSide = false;
    std::vector<AttributionComponent> components; ///< in the order of the pass
    /// The largest difference, over every attention sublayer, between its output as the pass computed it and
    /// the sum of its heads' parts and its bias (a check that the split is the model's own).
    double splitGap = 0.0;
    double ms = 0.0;
};

/// Attribution at `position` of the stream the logit lens reads (the decoder's input tokens, an
/// encoder-only model's text), for `token` (−1: the model's most likely next token there) against `versus`
/// (−1: none). Throws InputError as logitLens does, and for a position or token out of range.
/// `extremes` > 0 also gives each component the tokens it promotes and suppresses most (that many each).
Attribution directLogitAttribution(const Model& model, const AttentionSnapshot& snap, int position,
                                   int64_t token = -1, int64_t versus = -1, const HeadAblation& ablation = {},
                                   int extremes = 0);

} // namespace core
