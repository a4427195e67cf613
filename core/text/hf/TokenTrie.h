#pragma once
// A trie over byte strings that finds its keys in a text leftmost-longest, as the tokenizers library finds
// added tokens (its Aho–Corasick automaton with MatchKind::LeftmostLongest): the match that starts first,
// the longest of those that start there, then on from its end. Comparing every key at every byte cost
// 20,000 added tokens 15 s on 100 KB of text; here each byte costs one step, plus one for each further byte
// of a key that matches there.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace core {

class TokenTrie {
public:
    TokenTrie();

    /// Adds a key (not empty) standing for `value` (≥ 0). A key added again keeps its first value.
    void add(const std::string& key, int32_t value);
    bool empty() const { return values_.size() == 1; }

    struct Match {
        std::size_t begin = 0, end = 0; // bytes of the text
        int32_t value = -1;
    };
    /// The non-overlapping matches in the text, leftmost-longest. `steps`, when given, receives the number
    /// of trie transitions taken (at most the text's length times the longest key's, in practice about the
    /// text's length).
    std::vector<Match> matches(const std::string& text, std::size_t* steps = nullptr) const;

private:
    int32_t child(int32_t node, unsigned char byte) const;
    std::array<int32_t, 256> root_; // the root's children, by byte: the step most bytes end at
    std::unordered_map<uint64_t, int32_t> children_; // (node << 8 | byte) → node, below the root
    std::vector<int32_t> values_;                    // by node: the key's value ending there, or -1
};

} // namespace core
