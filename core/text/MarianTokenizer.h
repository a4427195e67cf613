#pragma once
// Marian's tokenizer (transformers' MarianTokenizer, the opus-mt folders): a SentencePiece model per side
// (source.spm, target.spm) splits the text into pieces, and one vocab.json, shared by both sides, numbers
// them; a piece vocab.json lacks is <unk>. A source is its pieces and </s>; the decoder starts at <pad>.

#include "core/text/SpmProcessor.h"
#include "core/text/Tokenizer.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace core {

class MarianTokenizer : public Tokenizer {
public:
    /// The name of the shared vocabulary beside the .spm files.
    static constexpr const char* kVocabFile = "vocab.json";

    /// spmPath is this side's SentencePiece model, vocabPath the folder's vocab.json. Throws IoError when a
    /// file cannot be read, FormatError naming it when it is not a SentencePiece model or when vocab.json
    /// lacks </s>, <unk> or <pad>.
    static std::unique_ptr<MarianTokenizer> fromFiles(const std::string& spmPath,
                                                      const std::string& vocabPath);
    /// The same from the files' contents; the names stand for the files in messages.
    static std::unique_ptr<MarianTokenizer> fromContents(std::string spmBytes, const std::string& spmName,
                                                         const std::string& vocabText,
                                                         const std::string& vocabName);

    /// A leading language code (">>fra<<", which multilingual opus-mt models read) is one token, as
    /// MarianTokenizer keeps it; the rest is SentencePiece's pieces looked up in vocab.json.
    std::vector<Token> tokenize(const std::string& text) const override;
    /// The pieces joined by this side's SentencePiece model, as MarianTokenizer decodes them.
    std::string detokenize(const std::vector<int64_t>& ids) const override;
    std::vector<std::string> pieces(const std::string& text) const override;
    std::unique_ptr<Tokenizer> clone() const override;
    std::string fileContents() const override { return sp_.bytes(); }
    std::vector<std::pair<std::string, std::string>> extraFiles(const std::string&) const override {
        return {{kVocabFile, vocabText_}};
    }
    /// Nothing before a source, </s> after it.
    std::vector<int64_t> promptPrefix() const override { return {}; }
    std::vector<int64_t> promptSuffix() const override { return {vocab().eos()}; }

private:
    MarianTokenizer(Vocabulary vocab, SpmProcessor sp, std::string vocabText);
    SpmProcessor sp_;
    std::string vocabText_; // vocab.json as read, written back as it was
};

} // namespace core
