#pragma once

#include "core/text/Tokenizer.h"

namespace core {

/// Words split on white space; every punctuation character is a token of its own.
/// Letters, digits, apostrophes inside words and any non-ASCII character count as word characters.
class WordTokenizer : public Tokenizer {
public:
    WordTokenizer(Vocabulary vocab, bool lowercase) : Tokenizer(std::move(vocab)), lowercase_(lowercase) {}
    std::vector<Token> tokenize(const std::string& text) const override;
    std::string detokenize(const std::vector<int64_t>& ids) const override;
    std::vector<std::string> pieces(const std::string& text) const override;
    std::unique_ptr<Tokenizer> clone() const override {
        return std::make_unique<WordTokenizer>(vocab(), lowercase_);
    }

private:
    bool lowercase_;
};

} // namespace core
