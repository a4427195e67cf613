#include "core/text/BpeTokenizer.h"

#include "core/base/Errors.h"

namespace core {

namespace {

Vocabulary vocabularyOf(const ByteLevelBpe& bpe) {
    const bool ours = bpe.find(Vocabulary::kPad) >= 0 && bpe.find(Vocabulary::kBos) >= 0 &&
                      bpe.find(Vocabulary::kEos) >= 0 && bpe.find(Vocabulary::kUnk) >= 0;
    if (!ours && bpe.find(BpeTokenizer::kEndOfText) < 0)
        throw FormatError("the vocabulary has neither <pad> <bos> <eos> <unk> nor <|endoftext|>");
    const std::string all = BpeTokenizer::kEndOfText;
    return Vocabulary::fromTokens(bpe.tokens(), ours ? Vocabulary::kPad : all, ours ? Vocabulary::kBos : all,
                                  ours ? Vocabulary::kEos : all, ours ? Vocabulary::kUnk : all);
}

} // namespace

BpeTokenizer::BpeTokenizer(ByteLevelBpe bpe)
    : BpeTokenizer(std::make_shared<const ByteLevelBpe>(std::move(bpe))) {}

// The vocabulary is read from the shared tables, not from a by-value argument: the order in which a call's
// arguments are evaluated is unspecified, and a move in one would empty the other.
BpeTokenizer::BpeTokenizer(std::shared_ptr<const ByteLevelBpe> bpe) : BpeTokenizer(vocabularyOf(*bpe), bpe) {}

BpeTokenizer::BpeTokenizer(Vocabulary vocab, std::shared_ptr<const ByteLevelBpe> bpe)
    : Tokenizer(std::move(vocab)), bpe_(std::move(bpe)) {}

std::unique_ptr<BpeTokenizer> BpeTokenizer::fromFiles(const std::string& vocabPath,
                                                      const std::string& mergesPath) {
    auto bpe = ByteLevelBpe::fromFiles(vocabPath, mergesPath);
    try {
        return std::make_unique<BpeTokenizer>(std::move(bpe));
    } catch (const FormatError& e) {
        throw FormatError(vocabPath + ": " + e.what());
    }
}

std::vector<Token> BpeTokenizer::tokenize(const std::string& text) const {
    std::vector<Token> out;
    for (const auto& piece : bpe_->pretokenize(text))
        for (auto& symbol : bpe_->bpe(piece))
            out.push_back(lookup(std::move(symbol)));
    return out;
}

std::string BpeTokenizer::detokenize(const std::vector<int64_t>& ids) const {
    std::string out;
    for (const auto id : ids)
        if (id >= 0 && id < vocab().size() && !vocab().isSpecial(id))
            out += bpe_->token(id);
    return out;
}

std::vector<std::string> BpeTokenizer::pieces(const std::string& text) const {
    return ByteLevelBpe::pretokenize(text);
}

std::unique_ptr<Tokenizer> BpeTokenizer::clone() const {
    return std::unique_ptr<Tokenizer>(new BpeTokenizer(vocab(), bpe_));
}

std::vector<std::pair<std::string, std::string>>
BpeTokenizer::extraFiles(const std::string& mergesFile) const {
    return {{mergesFile, bpe_->mergesText()}};
}

} // namespace core
