#pragma once
// The tokenizer interface every model side uses, and the factory that picks one from config.json.

#include "core/ModelConfig.h"
#include "core/Token.h"
#include "core/Vocabulary.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
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
    /// An independent copy (a training run hands one to every model it snapshots).
    virtual std::unique_ptr<Tokenizer> clone() const = 0;
    /// What the model directory stores for this side: vocab.json text, or a tokenizer's own model file.
    virtual std::string fileContents() const { return vocab_.toJson(); }
    /// Further files the model directory stores for this side, as (name, contents): BPE's merges.txt.
    virtual std::vector<std::pair<std::string, std::string>> extraFiles(const ModelConfig&) const {
        return {};
    }

    const Vocabulary& vocab() const { return vocab_; }

protected:
    Token lookup(std::string piece) const;

private:
    Vocabulary vocab_;
};

/// The tokenizer config.json asks for, over the given vocabulary (char or word; a SentencePiece tokenizer
/// comes from its model file, see loadTokenizer).
std::unique_ptr<Tokenizer> makeTokenizer(const ModelConfig& config, Vocabulary vocab);

/// One side's tokenizer from a model directory: `file` is the vocab.json, or the SentencePiece model, that
/// config.json names. Throws ModelError/FormatError naming the file, also when its size disagrees with
/// config.json's `sizeField` (`expected` entries).
std::unique_ptr<Tokenizer> loadTokenizer(const ModelConfig& config, const std::string& dir,
                                         const std::string& file, int64_t expected, const char* sizeField);

} // namespace core
