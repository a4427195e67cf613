#include "core/run/AttentionSnapshot.h"

namespace core {

const AttentionBlock& AttentionSnapshot::block(AttentionKind kind) const {
    switch (kind) {
    case AttentionKind::Encoder:
        return encoder;
    case AttentionKind::Decoder:
        return decoder;
    case AttentionKind::Cross:
        return cross;
    case AttentionKind::Pooling:
        return pooling;
    }
    return encoder;
}

AttentionBlock& AttentionSnapshot::block(AttentionKind kind) {
    return const_cast<AttentionBlock&>(static_cast<const AttentionSnapshot&>(*this).block(kind));
}

const KeyNorms& AttentionSnapshot::valueNorms(AttentionKind kind) const {
    static const KeyNorms none;
    switch (kind) {
    case AttentionKind::Encoder:
        return encoderNorms;
    case AttentionKind::Decoder:
        return decoderNorms;
    case AttentionKind::Cross:
        return crossNorms;
    case AttentionKind::Pooling:
        break;
    }
    return none;
}

const AttentionBlock& AttentionSnapshot::weighted(AttentionKind kind) const {
    static const AttentionBlock none;
    switch (kind) {
    case AttentionKind::Encoder:
        return encoderWeighted;
    case AttentionKind::Decoder:
        return decoderWeighted;
    case AttentionKind::Cross:
        return crossWeighted;
    case AttentionKind::Pooling:
        break;
    }
    return none;
}

const std::vector<Token>& queryTokens(const AttentionSnapshot& snap, AttentionKind kind) {
    if (kind == AttentionKind::Pooling) {
        static const std::vector<Token> summary{Token{-1, "<pool>", false, true}};
        return summary;
    }
    return kind == AttentionKind::Encoder ? snap.srcTokens : snap.tgtTokens;
}

const std::vector<Token>& keyTokens(const AttentionSnapshot& snap, AttentionKind kind) {
    return kind == AttentionKind::Decoder ? snap.tgtTokens : snap.srcTokens;
}

} // namespace core
