#include "core/Tokenizer.h"

#include "core/BpeTokenizer.h"
#include "core/CharTokenizer.h"
#include "core/Errors.h"
#include "core/SentencePieceTokenizer.h"
#include "core/WordTokenizer.h"

#include <filesystem>

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
    case TokenizerKind::SentencePiece:
        throw ConfigError(
            "a SentencePiece tokenizer is read from its model file, not built from a vocabulary");
    case TokenizerKind::ByteBpe:
        throw ConfigError(
            "a byte-level BPE tokenizer is read from vocab.json and merges.txt, not built from a "
            "vocabulary alone");
    }
    return nullptr;
}

std::unique_ptr<Tokenizer> loadTokenizer(const ModelConfig& config, const std::string& dir,
                                         const std::string& file, int64_t expected, const char* sizeField) {
    const auto path = dir + "/" + file;
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
        throw ModelError(dir + ": missing tokenizer file '" + file + "' named in config.json");
    std::unique_ptr<Tokenizer> t;
    if (config.tokenizer == TokenizerKind::SentencePiece) {
        t = SentencePieceTokenizer::fromFile(path);
    } else if (config.tokenizer == TokenizerKind::ByteBpe) {
        const auto merges = dir + "/" + config.mergesFile;
        if (!std::filesystem::exists(merges, ec))
            throw ModelError(dir + ": missing BPE merges file '" + config.mergesFile +
                             "' named in config.json");
        t = BpeTokenizer::fromFiles(path, merges);
    } else
        t = makeTokenizer(config, Vocabulary::fromFile(path));
    if (t->vocab().size() != expected)
        throw ModelError(path + ": holds " + std::to_string(t->vocab().size()) +
                         " tokens but config.json's " + sizeField + " is " + std::to_string(expected));
    return t;
}

} // namespace core
