#pragma once
// The "normalizer" of a Hugging Face tokenizer.json: the text rewritten before it is split, as the
// tokenizers library does it (Unicode normal forms, lowercasing, SentencePiece's "▁" for spaces, …).

#include "core/text/hf/TextRegex.h"

#include <nlohmann/json_fwd.hpp>

#include <memory>
#include <string>
#include <vector>

namespace core {

class HfNormalizer {
public:
    /// Parses the normalizer object (null: the text is left as it is). Supported: Sequence, NFC, NFD, NFKC,
    /// NFKD, Lowercase, Strip, StripAccents, Prepend, Replace (a String or a Regex pattern), BertNormalizer.
    /// Throws FormatError naming `source` and the type for anything else.
    static HfNormalizer fromJson(const nlohmann::json& j, const std::string& source);

    /// The normalized text of one stretch of input (each stretch between added tokens is normalized on its
    /// own, as the library does).
    std::string apply(const std::string& text) const;

private:
    struct Step {
        std::string type;
        std::string text, content;              // Prepend: text; Replace: a String pattern text → content
        std::shared_ptr<const TextRegex> regex; // Replace with a Regex pattern
        bool left = false, right = false;       // Strip
        bool clean = true, cjk = true, accents = false, lower = true; // BertNormalizer
    };
    static void parse(const nlohmann::json& j, const std::string& source, std::vector<Step>& out);
    std::vector<Step> steps_;
};

} // namespace core
