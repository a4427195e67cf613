#include "core/run/AttentionSnapshot.h"

namespace core {

const char* toString(AttentionKind kind) {
    switch (kind) {
    case AttentionKind::Encoder:
        return "encoder";
    case AttentionKind::Decoder:
        return "decoder";
    case AttentionKind::Cross:
        return "cross";
    case AttentionKind::Pooling:
        return "pooling";
    }
    return "?";
}

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
