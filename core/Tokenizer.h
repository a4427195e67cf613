#pragma once
// The tokenizer interface every model side uses, and the factory that picks one from config.json.

#include "core/ModelConfig.h"
#include "core/Token.h"
#include "core/Vocabulary.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace core {

class Tokenizer {
public:
    explicit Tokenizer(Vocabulary vocab) : vocab_(std::move(vocab)) {}
    virtual ~Tokenizer() = default;
    Tokenizer(const Tokenizer&) = delete;
    Tokenizer& operator=(const Tokenizer&) = delete;

    /// Splits text into tokens, without special tokens.
    virtual std::vector<Token> tokenize(const std::string& text) const = 0;
    /// Joins ids back into text; special tokens are left out.
    virtual std::string detokenize(const std::vector<int64_t>& ids) const = 0;
    /// Splits text into the pieces the vocabulary is built from (for building vocabularies from a corpus).
    virtual std::vector<std::string> pieces(const std::string& text) const = 0;

    const Vocabulary& vocab() const { return vocab_; }

protected:
    Token lookup(std::string piece) const;

private:
    Vocabulary vocab_;
};

/// The tokenizer config.json asks for, over the given vocabulary.
std::unique_ptr<Tokenizer> makeTokenizer(const ModelConfig& config, Vocabulary vocab);

} // namespace core
