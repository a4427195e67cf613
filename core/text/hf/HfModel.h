#pragma once
// The "model" of a Hugging Face tokenizer.json: what splits one pre-tokenized word into token ids. BPE
// (HfBpeModel), WordPiece (HfWordPieceModel) and Unigram (HfUnigramModel) are read.

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace core {

class HfModel {
public:
    virtual ~HfModel() = default;
    /// The ids of one pre-tokenized word. What the vocabulary cannot express is the unknown token; without
    /// one, BPE leaves the character out and Unigram throws InputError naming it, as the library does.
    virtual std::vector<int64_t> encode(const std::string& word) const = 0;
    /// Token strings to ids, in the vocabulary's own spelling ("Ġthe", "▁the", "##ing", "<0x0A>").
    const std::unordered_map<std::string, int64_t>& vocab() const { return vocab_; }
    /// The unknown token's id, or −1.
    int64_t unk() const { return unk_; }

protected:
    /// Reads the model's "vocab" object ({token: id}); `where` names the file and part in messages.
    void readVocab(const nlohmann::json& model, const std::string& where);
    /// Byte fallback: appends the <0xXX> tokens of text's UTF-8 bytes and returns true, or appends nothing
    /// and returns false when the vocabulary lacks one of them.
    bool appendBytes(const std::string& text, std::vector<int64_t>& out) const;

    std::unordered_map<std::string, int64_t> vocab_;
    int64_t unk_ = -1;
};

} // namespace core
