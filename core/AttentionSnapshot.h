#pragma once
// What the views see of one analysis or one decoding step: plain data, no torch types.

#include "core/AttentionBlock.h"
#include "core/Token.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace core {

enum class AttentionKind { Encoder, Decoder, Cross };
const char* toString(AttentionKind);

struct AttentionSnapshot {
    std::string modelName;
    std::vector<Token> srcTokens;         ///< empty for decoder-only models
    std::vector<Token> tgtTokens;         ///< the decoder's input: <bos> and the tokens decoded so far
    AttentionBlock encoder;               ///< [L][H][S][S]
    AttentionBlock decoder;               ///< [L][H][T][T], masked: the upper triangle is 0
    AttentionBlock cross;                 ///< [L][H][T][S]
    std::vector<float> nextTokenLogProbs; ///< log-probabilities of the token after the last target token
    double encodeMs = 0.0;                ///< wall time of the encoder pass that produced this
    double decodeMs = 0.0;                ///< wall time of the decoder pass (or step) that produced this

    /// Bytes of attention as stored (dense or compact) and of the log-probabilities: what a snapshot costs.
    std::size_t bytes() const {
        return encoder.bytes() + decoder.bytes() + cross.bytes() + nextTokenLogProbs.size() * sizeof(float);
    }

    const AttentionBlock& block(AttentionKind kind) const {
        return kind == AttentionKind::Encoder ? encoder : kind == AttentionKind::Decoder ? decoder : cross;
    }
};

} // namespace core
