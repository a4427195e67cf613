#pragma once
// text/ — from text to token ids and back, and the text itself. The ground floor of core/: it includes only
// base/. Tokenizer is the interface every model side uses (char, word, SentencePiece, byte-level BPE,
// tokenizer.json, Marian's .spm pieces numbered by vocab.json; SpmProcessor is the SentencePiece library);
// Vocabulary is the id table; TokenizerFactory is the one place that builds a tokenizer from a model
// directory's files; ByteLevelBpe and BpeTrainer are GPT-2's scheme and our trainer for it; TextCorpus and
// ParallelCorpus read the documents and sentence pairs models are trained and evaluated on.

#include "core/text/Token.h"
#include "core/text/Vocabulary.h"

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
    /// Further files the model directory stores for this side, as (name, contents): BPE's merges, under
    /// the name config.json gives them.
    virtual std::vector<std::pair<std::string, std::string>> extraFiles(const std::string& mergesFile) const {
        (void)mergesFile;
        return {};
    }

    /// The special ids a prompt starts with: <bos>, or what a tokenizer.json's post-processor puts before a
    /// sequence (nothing for Qwen2's and SmolLM's, <s> for Mistral's and a template's <|begin_of_text|>).
    virtual std::vector<int64_t> promptPrefix() const { return {vocab_.bos()}; }
    /// The special ids a whole sequence ends with: <eos>, or what the post-processor puts after one (BERT's
    /// [SEP], RoBERTa's </s>). A source is promptPrefix(), its tokens, then these.
    virtual std::vector<int64_t> promptSuffix() const { return {vocab_.eos()}; }

    const Vocabulary& vocab() const { return vocab_; }

protected:
    Token lookup(std::string piece) const;

private:
    Vocabulary vocab_;
};

} // namespace core
