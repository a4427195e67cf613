#pragma once
// The "added_tokens" of a Hugging Face tokenizer.json, found in the text as the tokenizers library's
// AddedVocabulary finds them: first those not `normalized` in the raw text, then the normalized ones in each
// normalized stretch between, as the normalizer writes them; each leftmost-longest (TokenTrie). A
// `single_word` token is taken only with no word character beside it; `lstrip` and `rstrip` take the
// whitespace beside it along.

#include "core/text/hf/TokenTrie.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace core {

class HfNormalizer;

class HfAddedTokens {
public:
    struct Token {
        std::string content;
        int64_t id = 0;
        bool special = false, singleWord = false, lstrip = false, rstrip = false, normalized = false;
    };

    /// Parses the list (null or absent: none). Each needs a whole "id" (below 2^32, as the library's ids
    /// are) and a non-empty "content"; its flags are true or false, and `normalized`, when absent, is
    /// !special, as the library builds a token. Throws FormatError naming `source` and the token.
    static HfAddedTokens fromJson(const nlohmann::json& list, const std::string& source);
    /// Indexes the tokens for split(): the normalized ones as `normalizer` writes their content.
    void index(const HfNormalizer& normalizer);

    /// In the file's order.
    const std::vector<Token>& tokens() const { return tokens_; }

    /// [begin, end) bytes of the text: one added token (with the whitespace it strips), or text between.
    struct Part {
        std::size_t begin = 0, end = 0;
        const Token* token = nullptr; // nullptr: text to normalize or split further
    };
    /// The text cut at the added tokens found in it: the unnormalized ones (normalizedPass false, on the raw
    /// text) or the normalized ones (true, on a normalized stretch). The parts cover the text in order.
    /// `steps` receives the trie's (TokenTrie::matches).
    std::vector<Part> split(const std::string& text, bool normalizedPass, std::size_t* steps = nullptr) const;

private:
    std::vector<Token> tokens_;
    TokenTrie raw_, normalized_; // values: indices into tokens_
};

} // namespace core
