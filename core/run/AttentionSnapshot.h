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

/// Which attention a block holds. A Transformer has the first three; the seed's recurrent models show their
/// decoder's attention over the source as Cross (one layer, one head) and a classifier's attention pooling
/// as Pooling.
enum class AttentionKind { Encoder, Decoder, Cross, Pooling };
/// Every kind, in the order dumps and selectors list them.
inline constexpr AttentionKind kAttentionKinds[] = {AttentionKind::Encoder, AttentionKind::Decoder,
                                                    AttentionKind::Cross, AttentionKind::Pooling};
const char* toString(AttentionKind);

struct AttentionSnapshot {
    std::string modelName;
    std::vector<Token> srcTokens; ///< empty for decoder-only models
    std::vector<Token> tgtTokens; ///< the decoder's input: <bos> and the tokens decoded so far
    AttentionBlock encoder;       ///< [L][H][S][S]
    AttentionBlock decoder;       ///< [L][H][T][T], masked: the upper triangle is 0
    AttentionBlock cross;         ///< [L][H][T][S]
    AttentionBlock pooling;       ///< [1][1][1][S]: one summary query over the source
    PoolingDetail pooled;         ///< a classifier's answer token by token; empty for other families
    int textTokens = 0;           ///< tokens the analysed text had (source, or a decoder-only model's prompt)
    int readTokens = 0;           ///< of them, those read: fewer when the text was cut at the model's limit
    int maxLen = 0;          ///< the model's max_len: a side longer than it went past the positions trained
    std::vector<int> forced; ///< target positions whose token the user chose (Force), not the sampler
    std::vector<float> nextTokenLogProbs; ///< log-probabilities of the token after the last target token
    double encodeMs = 0.0;                ///< wall time of the encoder pass that produced this
    double decodeMs = 0.0;                ///< wall time of the decoder pass (or step) that produced this

    /// Bytes of attention as stored (dense or compact) and of the log-probabilities: what a snapshot costs.
    std::size_t bytes() const {
        return encoder.bytes() + decoder.bytes() + cross.bytes() + pooling.bytes() + pooled.bytes() +
               nextTokenLogProbs.size() * sizeof(float);
    }

    /// Whether the text was longer than the model reads, and was cut after readTokens.
    bool cut() const { return textTokens > readTokens; }

    const AttentionBlock& block(AttentionKind kind) const;
    AttentionBlock& block(AttentionKind kind);
    /// Whether this snapshot holds attention of that kind (a model without it leaves the block empty).
    bool has(AttentionKind kind) const { return !block(kind).empty(); }
};

/// The tokens that label the queries (rows) and keys (columns) of a kind: encoder self-attention is source
/// × source, decoder self-attention target × target, cross-attention target × source, and pooling one
/// summary row (a special token "<pool>") × source.
const std::vector<Token>& queryTokens(const AttentionSnapshot& snap, AttentionKind kind);
const std::vector<Token>& keyTokens(const AttentionSnapshot& snap, AttentionKind kind);

} // namespace core
