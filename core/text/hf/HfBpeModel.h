#pragma once
// The "model" of a Hugging Face tokenizer.json when its type is BPE: a word's characters merged pair by pair,
// the pair of lowest rank first and the leftmost of equal ones, as the tokenizers library does; characters
// missing from the vocabulary become their UTF-8 bytes' <0xXX> tokens (byte_fallback) or the unknown token.

#include "core/text/hf/HfModel.h"

#include <nlohmann/json_fwd.hpp>

namespace core {

class HfBpeModel : public HfModel {
public:
    /// Parses {"type": "BPE", "vocab": {token: id}, "merges": ["a b", …] or [["a", "b"], …], "unk_token",
    /// "byte_fallback", "fuse_unk", "ignore_merges", …}. Throws FormatError naming `source` for a malformed
    /// model, a merge whose tokens are not in the vocabulary, or options that change the result in a way not
    /// implemented here (dropout, a continuing-subword prefix, an end-of-word suffix).
    static HfBpeModel fromJson(const nlohmann::json& j, const std::string& source);

    std::vector<int64_t> encode(const std::string& word) const override;

private:
    struct Merge {
        int rank;
        int64_t id;
    };
    static uint64_t pairKey(int64_t a, int64_t b) {
        return (static_cast<uint64_t>(a) << 32) | static_cast<uint64_t>(b);
    }
    void appendSymbol(const std::string& c, std::vector<int64_t>& out) const;

    std::unordered_map<uint64_t, Merge> merges_;
    bool byteFallback_ = false, fuseUnk_ = false, ignoreMerges_ = false;
};

} // namespace core
