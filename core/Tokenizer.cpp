#include "core/Tokenizer.h"

#include "core/CharTokenizer.h"
#include "core/WordTokenizer.h"

namespace core {

Token Tokenizer::lookup(std::string piece) const {
    const auto id = vocab_.find(piece);
    Token t;
    t.unknown = id < 0;
    t.id = t.unknown ? vocab_.unk() : id;
    t.text = std::move(piece);
    return t;
}

std::unique_ptr<Tokenizer> makeTokenizer(const ModelConfig& config, Vocabulary vocab) {
    switch (config.tokenizer) {
    case TokenizerKind::Char:
        return std::make_unique<CharTokenizer>(std::move(vocab));
    case TokenizerKind::Word:
        return std::make_unique<WordTokenizer>(std::move(vocab), config.lowercase);
    }
    return nullptr;
}

} // namespace core
