#pragma once
// GPT-2's byte-level BPE: text is split by GPT-2's pattern, each piece's UTF-8 bytes become symbols, and the
// merges of merges.txt join neighbouring symbols in rank order. No text is ever unknown: every byte is a
// symbol. The files are GPT-2's own (vocab.json maps tokens written in GPT-2's byte-to-unicode alphabet to
// ids; merges.txt lists one "a b" merge per line after a version line), so a Hugging Face GPT-2 directory
// and a vocabulary trained here (BpeTrainer) are read and written the same way.
//
// The merge loop follows the reference JavaScript encoder (npm gpt-3-encoder) step for step, including how
// it looks a pair up by the text "a,b": the ids agree with it, not just with the idea of BPE.

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace core {

class ByteLevelBpe {
public:
    /// Parses vocab.json and merges.txt text; the names stand for the files in messages. Throws FormatError
    /// naming the file (and line) when one is malformed or a merge's tokens are not in the vocabulary.
    static ByteLevelBpe fromText(const std::string& vocabJson, const std::string& mergesText,
                                 const std::string& vocabName = "vocab.json",
                                 const std::string& mergesName = "merges.txt");
    /// Reads both files; IoError when one can't be read.
    static ByteLevelBpe fromFiles(const std::string& vocabPath, const std::string& mergesPath);
    /// A vocabulary from raw byte strings: `tokens` in id order (specials included as they are), the merges
    /// as pairs of raw byte strings in rank order.
    static ByteLevelBpe fromTokens(std::vector<std::string> tokens,
                                   std::vector<std::pair<std::string, std::string>> merges);

    /// GPT-2's split of text into pieces ('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|
    /// \s+(?!\S)|\s+ with JavaScript's \s), as byte strings. Bytes that are not valid UTF-8 count as
    /// punctuation and are kept as they are.
    static std::vector<std::string> pretokenize(const std::string& text);
    /// The ids of text. A symbol missing from the vocabulary (possible only with a vocabulary whose merges
    /// make tokens it does not list) gets -1.
    std::vector<int64_t> encode(const std::string& text) const;
    /// The merged symbols of one piece, as raw byte strings.
    std::vector<std::string> bpe(const std::string& piece) const;
    /// The bytes the ids stand for, joined (invalid UTF-8 when a multi-byte character is cut).
    std::string decode(const std::vector<int64_t>& ids) const;

    int64_t size() const { return static_cast<int64_t>(tokens_.size()); }
    /// The raw bytes of a token (a special token's own text). Asserts id is in range.
    const std::string& token(int64_t id) const { return tokens_[static_cast<std::size_t>(id)]; }
    /// -1 when absent.
    int64_t find(const std::string& rawToken) const;
    const std::vector<std::string>& tokens() const { return tokens_; }
    const std::vector<std::pair<std::string, std::string>>& merges() const { return merges_; }

    /// vocab.json text (tokens in GPT-2's byte-to-unicode alphabet, in id order).
    std::string vocabJson() const;
    /// merges.txt text, with GPT-2's version line.
    std::string mergesText() const;

    /// GPT-2's printable stand-in for a raw byte string ("Ġ" for a space), as UTF-8.
    static std::string toUnicodeAlphabet(const std::string& raw);
    /// The reverse; false when s holds a character outside the alphabet (a special token like
    /// <|endoftext|> is written as it is, and so read back as it is).
    static bool fromUnicodeAlphabet(const std::string& s, std::string& raw);

private:
    void index();
    std::vector<std::string> tokens_;
    std::vector<std::pair<std::string, std::string>> merges_;
    std::unordered_map<std::string, int64_t> ids_;
    // Rank by the text "a,b", as the reference encoder keys its table (a later merge with the same text
    // wins, as there).
    std::unordered_map<std::string, int64_t> ranks_;
};

} // namespace core
