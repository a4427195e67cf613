#pragma once
// What the views see of one analysis or one decoding step: plain data, no torch types.

#include "core/model/AttentionBlock.h"
#include "core/run/PoolingDetail.h"
#include "core/text/Token.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace core {

/// ‖v_j W_O^(h)‖ for every layer, head and key of one kind (Kobayashi et al., 2020): how large a vector key j
/// hands to the layer's output through head h per unit of attention weight. [layer][head][key], row-major.
struct KeyNorms {
    int layers = 0;
    int heads = 0;
    int keys = 0;
    std::vector<float> data;

    bool empty() const { return data.empty(); }
    const float* row(int layer, int head) const {
        return data.data() + (static_cast<std::size_t>(layer) * static_cast<std::size_t>(heads) +
                              static_cast<std::size_t>(head)) *
                                 static_cast<std::size_t>(keys);
    }
    float at(int layer, int head, int key) const { return row(layer, head)[key]; }
};

struct AttentionSnapshot {
    std::string modelName;
    std::vector<Token> srcTokens; ///< empty for decoder-only models
    std::vector<Token> tgtTokens; ///< the decoder's input: <bos> and the tokens decoded so far
    AttentionBlock encoder;       ///< [L][H][S][S]
    AttentionBlock decoder;       ///< [L][H][T][T], masked: the upper triangle is 0
    AttentionBlock cross;         ///< [L][H][T][S]
    AttentionBlock pooling;       ///< [1][1][1][S]: one summary query over the source
    PoolingDetail pooled;         ///< a classifier's answer token by token; empty for other families
    /// Each Transformer kind's value norms (KeyNorms); empty for the recurrent families.
    KeyNorms encoderNorms, decoderNorms, crossNorms;
    /// Each kind's weights coloured by what they carry: α_ij·‖v_j W_O^(h)‖, rows renormalised to sum to 1
    /// (core::addValueWeighted fills them when asked; empty otherwise).
    AttentionBlock encoderWeighted, decoderWeighted, crossWeighted;
    std::string ablation =
        "none";         ///< the heads switched off in the run that produced this (HeadAblation::text)
    int textTokens = 0; ///< tokens the analysed text had (source, or a decoder-only model's prompt)
    int readTokens = 0; ///< of them, those read: fewer when the text was cut at the model's limit
    int maxLen = 0;     ///< the model's max_len: a side longer than it went past the positions trained
    /// Decoder self-attention's key/value heads when fewer than its heads (grouped-query attention: query
    /// heads h·r … h·r + r − 1 share key/value head h, r = heads / kvHeads); 0 when every head has its own.
    int kvHeads = 0;
    std::vector<int> forced; ///< target positions whose token the user chose (Force), not the sampler
    /// The decoding timeline: for each target position, the point of the decoder's stream (an index into
    /// streamPoints) from which the token there stays the logit lens's top token at the position before,
    /// up to the output; −1 for a token the model did not produce (the prompt or prefix) and for one that
    /// is not the top at the output (sampled, or forced). Empty for a run without the lens (no capture, a
    /// recurrent or encoder-only model).
    std::vector<int> commitment;
    std::vector<std::string> streamPoints; ///< "embed", "0.attn", "0.cross", "0.mlp", …
    std::vector<float> nextTokenLogProbs;  ///< log-probabilities of the token after the last target token
    /// False for a model that reads its text and decodes nothing (a classifier, an encoder-only model).
    bool decodes = true;
    /// An encoder-only model's: the source row of the first mask token, whose distribution under the
    /// masked-LM head nextTokenLogProbs then holds; −1 when there is none (no mask in the text, or no head).
    int maskRow = -1;
    double encodeMs = 0.0; ///< wall time of the encoder pass that produced this
    double decodeMs = 0.0; ///< wall time of the decoder pass (or step) that produced this

    /// Bytes of attention as stored (dense or compact) and of the log-probabilities: what a snapshot costs.
    std::size_t bytes() const {
        return encoder.bytes() + decoder.bytes() + cross.bytes() + pooling.bytes() + pooled.bytes() +
               encoderWeighted.bytes() + decoderWeighted.bytes() + crossWeighted.bytes() +
               (encoderNorms.data.size() + decoderNorms.data.size() + crossNorms.data.size() +
                nextTokenLogProbs.size()) *
                   sizeof(float);
    }

    /// Whether the text was longer than the model reads, and was cut after readTokens.
    bool cut() const { return textTokens > readTokens; }

    const AttentionBlock& block(AttentionKind kind) const;
    AttentionBlock& block(AttentionKind kind);
    /// Whether this snapshot holds attention of that kind (a model without it leaves the block empty).
    bool has(AttentionKind kind) const { return !block(kind).empty(); }
    /// The value norms of a kind (empty for Pooling and for what the model lacks).
    const KeyNorms& valueNorms(AttentionKind kind) const;
    /// The value-weighted block of a kind (empty unless filled, and for Pooling).
    const AttentionBlock& weighted(AttentionKind kind) const;
};

/// The tokens that label the queries (rows) and keys (columns) of a kind: encoder self-attention is source
/// × source, decoder self-attention target × target, cross-attention target × source, and pooling one
/// summary row (a special token "<pool>") × source.
const std::vector<Token>& queryTokens(const AttentionSnapshot& snap, AttentionKind kind);
const std::vector<Token>& keyTokens(const AttentionSnapshot& snap, AttentionKind kind);

} // namespace core
