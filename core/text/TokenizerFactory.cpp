#include "core/text/TokenizerFactory.h"

#include "core/base/Errors.h"
#include "core/base/Files.h"
#include "core/base/FolderLinks.h"
#include "core/text/BpeTokenizer.h"
#include "core/text/CharTokenizer.h"
#include "core/text/MarianTokenizer.h"
#include "core/text/SentencePieceTokenizer.h"
#include "core/text/WordTokenizer.h"
#include "core/text/hf/HfTokenizer.h"
#include "core/text/hf/WordPieceVocab.h"

#include <filesystem>

namespace core {

std::unique_ptr<Tokenizer> makeTokenizer(const TokenizerSpec& spec, Vocabulary vocab) {
    switch (spec.kind) {
    case TokenizerKind::Char:
        return std::make_unique<CharTokenizer>(std::move(vocab));
    case TokenizerKind::Word:
        return std::make_unique<WordTokenizer>(std::move(vocab), spec.lowercase);
    case TokenizerKind::SentencePiece:
        throw ConfigError(
            "a SentencePiece tokenizer is read from its model file, not built from a vocabulary");
    case TokenizerKind::ByteBpe:
        throw ConfigError(
            "a byte-level BPE tokenizer is read from vocab.json and merges.txt, not built from a "
            "vocabulary alone");
    case TokenizerKind::HfJson:
        throw ConfigError("a tokenizer.json tokenizer is read from its file, not built from a vocabulary");
    case TokenizerKind::Marian:
        throw ConfigError(
            "a Marian tokenizer is read from its .spm model and vocab.json, not built from a vocabulary");
    }
    return nullptr;
}

std::unique_ptr<Tokenizer> readTokenizer(const TokenizerSpec& spec, const std::string& dir,
                                         const std::string& file) {
    const auto path = dir + "/" + file;
    std::error_code ec;
    // A BERT folder from before tokenizer.json: its vocab.txt made into the tokenizer.json it stands for
    // (saved as such when the model is).
    const auto vocabTxt = dir + "/vocab.txt", config = dir + "/tokenizer_config.json";
    if (spec.kind == TokenizerKind::HfJson && file == "tokenizer.json" &&
        !std::filesystem::exists(path, ec) && std::filesystem::exists(vocabTxt, ec)) {
        const auto configText = std::filesystem::exists(config, ec) ? readFolderFile(config) : std::string();
        return HfTokenizer::fromText(wordPieceTokenizerJson(readFolderFile(vocabTxt), configText, vocabTxt),
                                     configText, vocabTxt, spec.rows);
    }
    if (!std::filesystem::exists(path, ec))
        throw ModelError(dir + ": missing tokenizer file '" + file + "' named in config.json");
    if (spec.kind == TokenizerKind::SentencePiece)
        return SentencePieceTokenizer::fromFile(path);
    if (spec.kind == TokenizerKind::HfJson)
        return HfTokenizer::fromFile(path, spec.rows);
    if (spec.kind == TokenizerKind::Marian) {
        const auto vocab = dir + "/" + MarianTokenizer::kVocabFile;
        if (!std::filesystem::exists(vocab, ec))
            throw ModelError(dir + ": missing " + MarianTokenizer::kVocabFile +
                             ", which numbers the pieces of '" + file + "'");
        return MarianTokenizer::fromFiles(path, vocab);
    }
    if (spec.kind == TokenizerKind::ByteBpe) {
        const auto merges = dir + "/" + spec.mergesFile;
        if (!std::filesystem::exists(merges, ec))
            throw ModelError(dir + ": missing BPE merges file '" + spec.mergesFile +
                             "' named in config.json");
        return BpeTokenizer::fromFiles(path, merges);
    }
    return makeTokenizer(spec, Vocabulary::fromFile(path));
}

} // namespace core
