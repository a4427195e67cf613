#include "core/text/BpeTrainer.h"

#include "core/base/Errors.h"
#include "core/text/Vocabulary.h"

#include <algorithm>
#include <queue>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

namespace core {

namespace {

using Symbol = uint32_t;
using PairCounts = std::unordered_map<uint64_t, int64_t>;
using PairWords = std::unordered_map<uint64_t, std::vector<std::size_t>>;

uint64_t pairKey(Symbol a, Symbol b) {
    return (static_cast<uint64_t>(a) << 32) | b;
}

struct Word {
    std::vector<Symbol> symbols;
    int64_t count = 0;
};

// The documents' distinct pieces as words of byte symbols, each with its count, the pieces sorted.
std::vector<Word> countWords(const std::vector<std::string>& documents) {
    // Merges never cross a piece, so each distinct piece is worked on once, weighted by its count.
    std::unordered_map<std::string, int64_t> pieceCounts;
    for (const auto& doc : documents)
        for (auto& piece : ByteLevelBpe::pretokenize(doc))
            ++pieceCounts[std::move(piece)];
    std::vector<std::pair<std::string, int64_t>> sorted(pieceCounts.begin(), pieceCounts.end());
    // Sorted: hash order would make the merges' tie-breaks depend on the library.
    std::sort(sorted.begin(), sorted.end());
    std::vector<Word> words;
    words.reserve(sorted.size());
    for (const auto& [piece, count] : sorted) {
        Word w;
        w.count = count;
        for (const char ch : piece)
            w.symbols.push_back(static_cast<unsigned char>(ch));
        words.push_back(std::move(w));
    }
    return words;
}

// Every adjacent pair of the words: its count over all words, and the words it occurs in.
void countPairs(const std::vector<Word>& words, PairCounts& pairCounts, PairWords& pairWords) {
    for (std::size_t w = 0; w < words.size(); ++w) {
        const auto& s = words[w].symbols;
        for (std::size_t i = 0; i + 1 < s.size(); ++i) {
            const auto k = pairKey(s[i], s[i + 1]);
            pairCounts[k] += words[w].count;
            pairWords[k].push_back(w);
        }
    }
}

// The symbol the pair key merges into, new unless its text is already one; the merge is listed in merges.
Symbol addMerge(uint64_t key, std::vector<std::string>& symbolText,
                std::unordered_map<std::string, Symbol>& symbolOf,
                std::vector<std::pair<std::string, std::string>>& merges) {
    const auto a = static_cast<Symbol>(key >> 32), b = static_cast<Symbol>(key);
    // "a"+"bc" and "ab"+"c" make the same token: one entry in the vocabulary, two merges.
    auto text = symbolText[a] + symbolText[b];
    const auto [known, added] = symbolOf.emplace(text, static_cast<Symbol>(symbolText.size()));
    if (added)
        symbolText.push_back(std::move(text));
    const Symbol merged = known->second;
    merges.emplace_back(symbolText[a], symbolText[b]);
    return merged;
}

// Rewrites each word that holds the pair key with merged in its place, moving the word's count from the
// pairs it held to those it now holds; returns the pairs whose counts changed.
std::unordered_set<uint64_t> applyMerge(uint64_t key, Symbol merged, std::vector<Word>& words,
                                        PairCounts& pairCounts, PairWords& pairWords) {
    const auto a = static_cast<Symbol>(key >> 32), b = static_cast<Symbol>(key);
    std::unordered_set<uint64_t> touched;
    auto wordList = std::move(pairWords[key]);
    pairWords.erase(key);
    std::unordered_set<std::size_t> done;
    for (const auto w : wordList) {
        if (!done.insert(w).second)
            continue;
        auto& s = words[w].symbols;
        const auto n = words[w].count;
        bool has = false;
        for (std::size_t i = 0; i + 1 < s.size() && !has; ++i)
            has = s[i] == a && s[i + 1] == b;
        if (!has)
            continue;
        for (std::size_t i = 0; i + 1 < s.size(); ++i) {
            const auto k = pairKey(s[i], s[i + 1]);
            pairCounts[k] -= n;
            touched.insert(k);
        }
        std::vector<Symbol> next;
        next.reserve(s.size());
        for (std::size_t i = 0; i < s.size();) {
            if (i + 1 < s.size() && s[i] == a && s[i + 1] == b) {
                next.push_back(merged);
                i += 2;
            } else {
                next.push_back(s[i++]);
            }
        }
        s = std::move(next);
        for (std::size_t i = 0; i + 1 < s.size(); ++i) {
            const auto k = pairKey(s[i], s[i + 1]);
            pairCounts[k] += n;
            touched.insert(k);
            pairWords[k].push_back(w);
        }
    }
    return touched;
}

} // namespace

ByteLevelBpe trainByteLevelBpe(const std::vector<std::string>& documents, const BpeTrainOptions& options) {
    constexpr int kSpecials = 4;
    if (options.vocabSize < kSpecials + 256)
        throw InputError(
            "a byte-level BPE vocabulary needs at least 260 tokens (4 specials and 256 bytes), not " +
            std::to_string(options.vocabSize));
    auto words = countWords(documents);

    std::vector<std::string> symbolText(256);
    std::unordered_map<std::string, Symbol> symbolOf;
    for (int b = 0; b < 256; ++b) {
        symbolText[static_cast<std::size_t>(b)] = std::string(1, static_cast<char>(b));
        symbolOf.emplace(symbolText[static_cast<std::size_t>(b)], static_cast<Symbol>(b));
    }
    PairCounts pairCounts;
    PairWords pairWords; // may list a word twice or stale ones
    countPairs(words, pairCounts, pairWords);

    struct Candidate {
        int64_t count;
        uint64_t key;
    };
    // Most frequent first; among equals the pair whose texts sort first.
    const auto worse = [&](const Candidate& x, const Candidate& y) {
        if (x.count != y.count)
            return x.count < y.count;
        const auto xa = static_cast<Symbol>(x.key >> 32), xb = static_cast<Symbol>(x.key);
        const auto ya = static_cast<Symbol>(y.key >> 32), yb = static_cast<Symbol>(y.key);
        return std::tie(symbolText[xa], symbolText[xb]) > std::tie(symbolText[ya], symbolText[yb]);
    };
    std::priority_queue<Candidate, std::vector<Candidate>, decltype(worse)> heap(worse);
    for (const auto& [k, c] : pairCounts)
        heap.push({c, k});

    std::vector<std::pair<std::string, std::string>> merges;
    const auto wanted = static_cast<std::size_t>(options.vocabSize - kSpecials - 256);
    while (symbolText.size() - 256 < wanted && !heap.empty()) {
        const auto top = heap.top();
        heap.pop();
        const auto it = pairCounts.find(top.key);
        if (it == pairCounts.end() || it->second != top.count)
            continue; // stale: the pair's count changed since this entry was pushed
        if (top.count < options.minCount)
            break;
        const Symbol merged = addMerge(top.key, symbolText, symbolOf, merges);
        for (const auto k : applyMerge(top.key, merged, words, pairCounts, pairWords)) {
            const auto c = pairCounts[k];
            if (c <= 0)
                pairCounts.erase(k);
            else if (k != top.key)
                heap.push({c, k});
        }
        pairCounts.erase(top.key);
    }

    std::vector<std::string> tokens{Vocabulary::kPad, Vocabulary::kBos, Vocabulary::kEos, Vocabulary::kUnk};
    tokens.insert(tokens.end(), symbolText.begin(), symbolText.end());
    return ByteLevelBpe::fromTokens(std::move(tokens), std::move(merges));
}

} // namespace core
