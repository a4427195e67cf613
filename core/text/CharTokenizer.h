#pragma once

#include "core/text/Tokenizer.h"

namespace core {

/// One token per Unicode code point (UTF-8 aware); a byte that is not valid UTF-8 becomes its own unknown
/// token.
class CharTokenizer : public Tokenizer {
public:
    explicit CharTokenizer(Vocabulary vocab) : Tokenizer(std::move(vocab)) {}
    std::vector<Token> tokenize(const std::string& text) const override;
    std::string detokenize(const std::vector<int64_t>& ids) const override;
    std::vector<std::string> pieces(const std::string& text) const override;
    std::unique_ptr<Tokenizer> clone() const override { return std::make_unique<CharTokenizer>(vocab()); }
};

/// Splits UTF-8 into code points; each invalid byte is returned alone.
std::vector<std::string> splitUtf8(const std::string& text);

} // namespace core
