#pragma once
// Byte-level BPE tokens (GPT-2's scheme, core/ByteLevelBpe) as a model side's tokenizer: vocab.json plus
// merges.txt in the model directory, as Hugging Face's GPT-2 directories have them.

#include "core/text/ByteLevelBpe.h"
#include "core/text/Tokenizer.h"

#include <memory>
#include <string>

namespace core {

/// Token texts are the raw bytes a token stands for, so a character cut between two tokens shows as its
/// bytes. The specials are <pad> <bos> <eos> <unk> when the vocabulary has them; otherwise GPT-2's single
/// <|endoftext|> plays all four parts.
class BpeTokenizer : public Tokenizer {
public:
    static constexpr const char* kEndOfText = "<|endoftext|>";

    explicit BpeTokenizer(ByteLevelBpe bpe);
    /// Reads vocab.json and merges.txt. IoError when one can't be read; FormatError naming the file when it
    /// is malformed or has neither the four specials nor <|endoftext|>.
    static std::unique_ptr<BpeTokenizer> fromFiles(const std::string& vocabPath,
                                                   const std::string& mergesPath);

    std::vector<Token> tokenize(const std::string& text) const override;
    std::string detokenize(const std::vector<int64_t>& ids) const override;
    /// GPT-2's pre-tokenized pieces (words with their leading space, runs of digits, punctuation, spaces).
    std::vector<std::string> pieces(const std::string& text) const override;
    std::unique_ptr<Tokenizer> clone() const override;
    std::string fileContents() const override { return bpe_->vocabJson(); }
    std::vector<std::pair<std::string, std::string>> extraFiles(const std::string& mergesFile) const override;

    const ByteLevelBpe& bpe() const { return *bpe_; }

private:
    explicit BpeTokenizer(std::shared_ptr<const ByteLevelBpe> bpe);
    BpeTokenizer(Vocabulary vocab, std::shared_ptr<const ByteLevelBpe> bpe);
    std::shared_ptr<const ByteLevelBpe> bpe_; // immutable, so copies share it
};

} // namespace core
