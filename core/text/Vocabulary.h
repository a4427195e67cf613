#pragma once
// token ↔ id table of one side of a model, read from vocab.json ({"token": id, ...}).

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace core {

class Vocabulary {
public:
    static constexpr const char* kPad = "<pad>";
    static constexpr const char* kBos = "<bos>";
    static constexpr const char* kEos = "<eos>";
    static constexpr const char* kUnk = "<unk>";

    /// Parses vocab.json text. Ids must be unique and cover 0..n-1; the four special tokens must exist.
    static Vocabulary fromJson(const std::string& text, const std::string& source = "vocab.json");
    static Vocabulary fromFile(const std::string& path);
    /// vocab.json's tokens in id order, checked as fromJson checks them but without the special tokens
    /// (GPT-2's vocabulary has its own).
    static std::vector<std::string> parseTokenIds(const std::string& text, const std::string& source);
    /// Builds a vocabulary from tokens in id order; the specials are added first when missing.
    static Vocabulary fromTokens(const std::vector<std::string>& tokens);
    /// Tokens exactly in id order, with the tokens that play the four special parts named (GPT-2 has one
    /// <|endoftext|> for all four). Throws FormatError when a named one is missing or a token repeats.
    static Vocabulary fromTokens(const std::vector<std::string>& tokens, const std::string& pad,
                                 const std::string& bos, const std::string& eos, const std::string& unk);

    std::string toJson() const;
    int64_t size() const { return static_cast<int64_t>(tokens_.size()); }
    /// -1 when absent.
    int64_t find(const std::string& token) const;
    const std::string& token(int64_t id) const;
    bool isSpecial(int64_t id) const { return id == pad_ || id == bos_ || id == eos_ || id == unk_; }

    int64_t pad() const { return pad_; }
    int64_t bos() const { return bos_; }
    int64_t eos() const { return eos_; }
    int64_t unk() const { return unk_; }

private:
    void indexSpecials(const std::string& source, const std::string& pad = kPad,
                       const std::string& bos = kBos, const std::string& eos = kEos,
                       const std::string& unk = kUnk);

    std::vector<std::string> tokens_;
    std::unordered_map<std::string, int64_t> ids_;
    int64_t pad_ = -1, bos_ = -1, eos_ = -1, unk_ = -1;
};

} // namespace core
