#pragma once
// What a Session needs of a model family to run it a token at a time, whatever computes it: the
// Transformer's KV-cached decoder (IncrementalDecoder), and, through the same interface, the seed's
// recurrent attention models (a GRU decoder attending over a BiLSTM encoder's states; an attention-pooling
// classifier, which reads its source once and decodes nothing).

#include "core/model/HeadAblation.h"
#include "core/model/Model.h"
#include "core/run/AttentionSnapshot.h"
#include "core/run/InsideRow.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace core {

class StepDecoder {
public:
    /// What n new target tokens, fed at positions t … t + n − 1, produced.
    struct Step {
        std::vector<float> logProbs; ///< [V] distribution of the token after the last one
        /// An encoder-only model's: the source row whose token logProbs is the distribution of (its first
        /// mask); −1 otherwise.
        int maskRow = -1;
        AttentionBlock selfRows;  ///< [L][H][n][t+n]: the new tokens' decoder self-attention rows (causal)
        AttentionBlock crossRows; ///< [L][H][n][S]: their attention over the source (empty without one)
        /// With capture, the logit lens at the last new position: the most likely token at each point of
        /// the decoder's stream (after the embeddings, after each sublayer), read through the final norm
        /// and the output layer, named in lensPoints ("embed", "0.attn", …). Empty for the recurrent
        /// families and an encoder-only model.
        std::vector<int64_t> lensTop;
        std::vector<std::string> lensPoints;
        double ms = 0.0;
    };

    virtual ~StepDecoder() = default;

    /// Feeds tokens at position length() on, in one pass. Throws InputError past max_len, outside the
    /// vocabulary, or for no tokens.
    virtual Step push(const std::vector<int64_t>& tokens) = 0;
    /// Forgets every token from position `length` on (stepping back is a rewind, not a recompute).
    virtual void rewind(int64_t length) = 0;
    virtual int64_t length() const = 0;

    /// Attention over the source computed once, when decoding starts: the encoder's self-attention
    /// [L][H][S][S] (kind Encoder), or a classifier's pooling row [1][1][1][S] (kind Pooling); empty when the
    /// family has none.
    virtual const AttentionBlock& sourceAttention() const = 0;
    virtual AttentionKind sourceKind() const { return AttentionKind::Encoder; }
    virtual double encodeMs() const = 0;
    /// False for a family that only reads its source (a classifier): its one distribution is the answer,
    /// and a Session has nothing to step.
    virtual bool generates() const { return true; }
    /// A classifier's answer token by token (scores, states, each token's share of the logits); null for
    /// the families that generate.
    virtual const PoolingDetail* poolingDetail() const { return nullptr; }

    /// The computation behind one row of attention in the current state (the source as encoded, the
    /// target up to length()), recomputed from what the decode kept: the residual rows entering each
    /// attention sublayer and the cached keys and values. Token labels are left to the caller. Throws
    /// InputError for a kind, layer, head or row this model does not have, naming the valid range, and
    /// (the default) for a family without queries and keys.
    virtual InsideRow inside(const InsideQuery& query) const;

    /// ‖v_j W_O^(h)‖ of every key of a kind in the current state (see KeyNorms): the source's for Encoder
    /// and Cross, the target's up to length() for Decoder. Empty (the default) for a kind or a family
    /// without values and an output projection, and for the encoder of a run started without capture.
    virtual KeyNorms valueNorms(AttentionKind kind) const;
};

/// Called after each layer of a pass (the encoder's and the decoder's), on the thread running it: how a long
/// analysis reports how far it has got. A family without layers to count never calls it.
using LayerDone = std::function<void()>;

/// How a Session starts decoding a source, with each side limited to `positions` tokens and the heads of
/// `ablation` switched off, calling `layerDone` after each layer of every pass; startDecoder unless a caller
/// brings its own (a family run/ has no module for yet, or a hand-built model in a test).
using StepDecoderFactory = std::function<std::unique_ptr<StepDecoder>(
    std::shared_ptr<const Model> model, const std::vector<int64_t>& src, int64_t positions,
    const HeadAblation& ablation, const LayerDone& layerDone)>;

} // namespace core
