#pragma once
// A Hugging Face tokenizer.json as a model side's tokenizer: added tokens found in the raw text first
// (HfAddedTokens), each stretch between them normalized (HfNormalizer), its normalized added tokens found,
// the rest cut into words (HfPreTokenizer) and split by the model (HfModel: BPE, WordPiece or Unigram),
// framed as the post-processor says (HfPostProcessor); the decoder (HfDecoder) turns ids back into text.
// The ids agree with the tokenizers library's (checked against its Rust library and npm
// @huggingface/tokenizers on real models' files).

#include "core/text/Tokenizer.h"

#include <memory>
#include <string>
#include <vector>

namespace core {

class HfTokenizer : public Tokenizer {
public:
    /// Reads tokenizer.json, and tokenizer_config.json beside it when there is one (it names the bos, eos,
    /// unk and pad tokens). rows > 0: ids up to rows − 1 exist (the model's embedding rows), those the file
    /// does not give named "<unusedN>" (no space, which a token strip would show as ␣). Throws IoError when
    /// it can't be read, FormatError naming the file and the part for a malformed or unsupported one (a
    /// WordLevel model, a Precompiled normalizer).
    static std::unique_ptr<HfTokenizer> fromFile(const std::string& path, int64_t rows = 0);
    /// The same from the files' text; configJson may be empty. name stands for the file in messages.
    static std::unique_ptr<HfTokenizer> fromText(const std::string& json, const std::string& configJson,
                                                 const std::string& name, int64_t rows = 0);
    ~HfTokenizer() override;

    /// The typed text's tokens, without the special tokens the post-processor adds; an added token typed in
    /// the text ("<|im_start|>") is that token.
    std::vector<Token> tokenize(const std::string& text) const override;
    /// The ids' text as the file's decoder writes it; special tokens are left out.
    std::string detokenize(const std::vector<int64_t>& ids) const override;
    /// The words the pre-tokenizer cuts the text into, in the model's alphabet.
    std::vector<std::string> pieces(const std::string& text) const override;
    std::unique_ptr<Tokenizer> clone() const override;
    std::string fileContents() const override;
    /// tokenizer_config.json, when one was read beside the file (it names the special tokens).
    std::vector<std::pair<std::string, std::string>> extraFiles(const std::string& mergesFile) const override;

    /// The ids the post-processor puts before and after one sequence (<|begin_of_text|>; BERT's [CLS] …
    /// [SEP]).
    const std::vector<int64_t>& prefixIds() const;
    std::vector<int64_t> promptPrefix() const override { return prefixIds(); }
    const std::vector<int64_t>& suffixIds() const;
    std::vector<int64_t> promptSuffix() const override { return suffixIds(); }

    struct Tables;

private:
    HfTokenizer(Vocabulary vocab, std::shared_ptr<const Tables> tables);
    std::shared_ptr<const Tables> tables_; // immutable, so copies share it
};

} // namespace core
