#pragma once
// Which tokenizer a model side uses, and the one place that builds one: from a vocabulary (char, word) or
// from its files (SentencePiece's model, byte-level BPE's vocab.json and merges.txt, Hugging Face's
// tokenizer.json). The tokenizers
// themselves know nothing of each other; only this factory names them all.

#include "core/text/Tokenizer.h"
#include "core/text/Vocabulary.h"

#include <memory>
#include <string>

namespace core {

enum class TokenizerKind { Char, Word, SentencePiece, ByteBpe, HfJson, Marian };

/// What a model directory says about a side's tokenizer, beyond its vocabulary file.
struct TokenizerSpec {
    TokenizerKind kind = TokenizerKind::Char; // char | word | sentencepiece | byte_bpe | marian
    bool lowercase = false;                   // word: fold case before lookup
    std::string mergesFile = "merges.txt";    // byte_bpe: the merges file beside the vocabulary
    int64_t rows =
        0; // tokenizer_json: the ids the model has (its embedding rows), which the file may not all name
};

/// A char or word tokenizer over the given vocabulary. Throws ConfigError for kinds that are read from
/// files of their own (SentencePiece, byte-level BPE).
std::unique_ptr<Tokenizer> makeTokenizer(const TokenizerSpec& spec, Vocabulary vocab);

/// One side's tokenizer from a directory: `file` is its vocab.json or SentencePiece model (Marian's side's
/// .spm, numbered by the vocab.json beside it). Throws
/// ModelError naming the directory and file when one is missing, FormatError/IoError from the readers.
std::unique_ptr<Tokenizer> readTokenizer(const TokenizerSpec& spec, const std::string& dir,
                                         const std::string& file);

} // namespace core
