#pragma once
// The "model" of a Hugging Face tokenizer.json when its type is Unigram (SentencePiece's unigram language
// model: T5, ALBERT, XLNet): a word split into the pieces whose log-probabilities sum highest (Viterbi, as
// the tokenizers library's optimized encoder does it); a character no piece covers is the unknown token, with
// runs of them fused into one, or, with byte_fallback, its UTF-8 bytes' <0xXX> tokens.

#include "core/text/hf/HfModel.h"

#include <nlohmann/json_fwd.hpp>

namespace core {

class HfUnigramModel : public HfModel {
public:
    /// Parses {"type": "Unigram", "vocab": [[piece, log-probability], …], "unk_id", "byte_fallback"}.
    /// Throws FormatError naming `source` for a malformed model or an unk_id outside the vocabulary.
    static HfUnigramModel fromJson(const nlohmann::json& j, const std::string& source);

    std::vector<int64_t> encode(const std::string& word) const override;

private:
    std::vector<double> scores_; // by id
    double unkScore_ = 0.0;      // the lowest score less 10, as the library gives an unknown character
    std::size_t longest_ = 0;    // bytes of the longest piece
    bool byteFallback_ = false;
};

} // namespace core
