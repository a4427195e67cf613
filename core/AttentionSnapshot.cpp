#include "core/AttentionSnapshot.h"

namespace core {

const char* toString(AttentionKind kind) {
    switch (kind) {
    case AttentionKind::Encoder:
        return "encoder";
    case AttentionKind::Decoder:
        return "decoder";
    case AttentionKind::Cross:
        return "cross";
    }
    return "?";
}

} // namespace core
