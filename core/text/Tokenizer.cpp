#include "core/text/Tokenizer.h"

namespace core {

Token Tokenizer::lookup(std::string piece) const {
    const auto id = vocab_.find(piece);
    Token t;
    t.unknown = id < 0;
    t.id = t.unknown ? vocab_.unk() : id;
    t.text = std::move(piece);
    return t;
}

} // namespace core
