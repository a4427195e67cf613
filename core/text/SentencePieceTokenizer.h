#pragma once
// Subword tokens from a SentencePiece model (the library Marian and T5 use), stored in the model directory
// as the `.model` file config.json's `tokenizer.src_vocab` / `tgt_vocab` names.

#include "core/text/SpmProcessor.h"
#include "core/text/Tokenizer.h"

#include <memory>
#include <string>

namespace core {

/// The ids are the SentencePiece model's own. The model must define the pieces <pad>, <bos>, <eos> and
/// <unk> (trainSentencePiece makes such models). With byte fallback (as trained here) any typed character
/// has a token, as UTF-8 byte pieces like <0xC3> when it is not in the vocabulary.
class SentencePieceTokenizer : public Tokenizer {
public:
    /// Reads a .model file. Throws IoError when it can't be read, FormatError naming it when it is not a
    /// SentencePiece model or lacks the special pieces.
    static std::unique_ptr<SentencePieceTokenizer> fromFile(const std::string& path);
    /// The same from the bytes of a .model file; name stands for the file in messages.
    static std::unique_ptr<SentencePieceTokenizer> fromBytes(std::string bytes, const std::string& name);
    ~SentencePieceTokenizer() override;

    struct TrainOptions {
        int vocabSize = 4000;             // pieces, the four specials and the 256 byte pieces included
        std::string modelType = "bpe";    // "bpe" | "unigram"
        double characterCoverage = 1.0;   // share of characters that get pieces of their own
        int threads = 2;                  // trainer threads
        int64_t maxSentences = 2'000'000; // sentences the trainer reads at most
    };
    /// Trains a model on the sentences: byte fallback, digits split, <pad> <bos> <eos> <unk> at ids 0–3.
    /// Returns the bytes of the .model file. Throws InputError with the library's reason when it fails
    /// (too few sentences for the vocabulary, say).
    static std::string train(const std::vector<std::string>& sentences, const TrainOptions& options);

    /// Pieces as the model writes them: "▁" marks the start of a word.
    std::vector<Token> tokenize(const std::string& text) const override;
    std::string detokenize(const std::vector<int64_t>& ids) const override;
    std::vector<std::string> pieces(const std::string& text) const override;
    std::unique_ptr<Tokenizer> clone() const override;
    std::string fileContents() const override { return sp_.bytes(); }

private:
    SentencePieceTokenizer(Vocabulary vocab, SpmProcessor sp);
    SpmProcessor sp_;
};

} // namespace core
