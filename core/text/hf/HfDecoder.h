#pragma once
// The "decoder" of a Hugging Face tokenizer.json: how token strings become text again, step by step over the
// list of tokens as the tokenizers library's decoders work (GPT-2's bytes, SentencePiece's "▁", <0xXX> byte
// tokens, WordPiece's "##").

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

namespace core {

class HfDecoder {
public:
    /// Parses the decoder object (null: tokens are joined with spaces, as the library does). Supported:
    /// Sequence, ByteLevel, Replace, ByteFallback, Fuse, Strip, Metaspace, WordPiece. Throws FormatError
    /// naming `source` for anything else or a malformed step.
    static HfDecoder fromJson(const nlohmann::json& j, const std::string& source);

    /// The text of a whole sequence of tokens (their vocabulary spellings).
    std::string decode(const std::vector<std::string>& tokens) const;
    /// What one token shows as on its own: the decoder's per-token steps (bytes, "▁" as a space), without
    /// those that look at the whole sequence (joining, stripping its ends).
    std::string tokenText(const std::string& token) const;

private:
    struct Step {
        std::string type;
        std::string from, to;      // Replace
        std::string content;       // Strip: the one character stripped
        int start = 0, stop = 0;   // Strip
        std::string replacement;   // Metaspace
        bool prependSpace = true;  // Metaspace: the first token's "▁" are dropped, not made spaces
        std::string prefix = "##"; // WordPiece
        bool cleanup = true;       // WordPiece: the library's clean-up of spaces before punctuation
    };
    static void parse(const nlohmann::json& j, const std::string& source, std::vector<Step>& out);
    std::vector<std::string> run(std::vector<std::string> tokens, bool whole) const;

    std::vector<Step> steps_;
    bool none_ = true; // no decoder at all
};

} // namespace core
