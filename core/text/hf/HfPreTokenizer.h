#pragma once
// The "pre_tokenizer" of a Hugging Face tokenizer.json: how normalized text is cut into the words the model
// then splits into tokens, as the tokenizers library does it: byte-level (GPT-2's bytes as printable
// characters), regex splits (Llama 3's and Qwen2's patterns), SentencePiece's Metaspace, whitespace and
// punctuation splits (BERT).

#include "core/text/hf/TextRegex.h"

#include <nlohmann/json_fwd.hpp>

#include <memory>
#include <string>
#include <vector>

namespace core {

class HfPreTokenizer {
public:
    /// One word: its text, and whether it starts the whole input (Metaspace's "first" scheme asks).
    struct Piece {
        std::string text;
        bool atStart = false;
    };

    /// Parses the pre_tokenizer object (null: the text is one word). Supported: Sequence, ByteLevel, Split,
    /// Metaspace, Whitespace, WhitespaceSplit, BertPreTokenizer, Punctuation, Digits. Throws FormatError
    /// naming `source` and the type for anything else.
    static HfPreTokenizer fromJson(const nlohmann::json& j, const std::string& source);

    std::vector<Piece> apply(const std::string& text, bool atStart) const;
    /// Whether a ByteLevel step maps bytes to GPT-2's printable alphabet (tokens are then written in it).
    bool byteLevel() const;

    /// How a split treats what its pattern matched (the library's SplitDelimiterBehavior).
    enum class Behavior { Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous };

private:
    struct Step {
        std::string type;
        std::shared_ptr<const TextRegex> regex; // Split, and the regex-based types
        std::string literal;                    // Split on a String pattern
        Behavior behavior = Behavior::Isolated;
        bool invert = false;
        bool addPrefixSpace = false; // ByteLevel
        bool useRegex = true;        // ByteLevel
        std::string replacement;     // Metaspace
        std::string prependScheme;   // Metaspace: always | first | never
        bool split = true;           // Metaspace
    };
    static void parse(const nlohmann::json& j, const std::string& source, std::vector<Step>& out);
    static std::vector<Piece> run(const Step& s, const Piece& p);
    std::vector<Step> steps_;
};

} // namespace core
