#pragma once
// The "model" of a Hugging Face tokenizer.json when its type is WordPiece (BERT's): a word split greedily
// into the longest pieces the vocabulary has, those after the first written with the continuing prefix
// ("##"); a word with a part no piece covers, or longer than max_input_chars_per_word, is one unknown token.

#include "core/text/hf/HfModel.h"

#include <nlohmann/json_fwd.hpp>

namespace core {

class HfWordPieceModel : public HfModel {
public:
    /// Parses {"type": "WordPiece", "vocab": {token: id}, "unk_token", "continuing_subword_prefix",
    /// "max_input_chars_per_word"}. Throws FormatError naming `source` for a malformed model or an
    /// unk_token the vocabulary lacks.
    static HfWordPieceModel fromJson(const nlohmann::json& j, const std::string& source);

    std::vector<int64_t> encode(const std::string& word) const override;

private:
    std::string prefix_ = "##";
    std::size_t maxChars_ = 100;
};

} // namespace core
