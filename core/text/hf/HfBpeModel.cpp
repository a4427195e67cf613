#include "core/text/hf/HfBpeModel.h"

#include "core/base/Errors.h"
#include "core/text/UnicodeText.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <queue>

namespace core {

using nlohmann::json;

HfBpeModel HfBpeModel::fromJson(const json& j, const std::string& source) {
    const auto where = source + ": model";
    HfBpeModel m;
    m.readVocab(j, where);
    auto flag = [&](const char* key) { return j.contains(key) && j[key].is_boolean() && j[key].get<bool>(); };
    auto text = [&](const char* key) {
        return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
    };
    if (j.contains("dropout") && j["dropout"].is_number() && j["dropout"].get<double>() > 0.0)
        throw FormatError(where + ": 'dropout' " + j["dropout"].dump() +
                          " makes the split random; attnscope reads BPE models without dropout");
    if (!text("continuing_subword_prefix").empty() || !text("end_of_word_suffix").empty())
        throw FormatError(where + ": a continuing_subword_prefix or end_of_word_suffix is not supported");
    m.byteFallback_ = flag("byte_fallback");
    m.fuseUnk_ = flag("fuse_unk");
    m.ignoreMerges_ = flag("ignore_merges");
    if (const auto unk = text("unk_token"); !unk.empty()) {
        const auto it = m.vocab_.find(unk);
        if (it == m.vocab_.end())
            throw FormatError(where + ": the unk_token '" + unk + "' is not in the vocabulary");
        m.unk_ = it->second;
    }
    if (!j.contains("merges") || !j["merges"].is_array())
        throw FormatError(where + ": 'merges' must be a list");
    int rank = 0;
    for (const auto& merge : j["merges"]) {
        std::string a, b;
        if (merge.is_string()) { // "a b": the older spelling, split at its one space
            const auto s = merge.get<std::string>();
            const auto space = s.find(' ');
            if (space == std::string::npos || s.find(' ', space + 1) != std::string::npos)
                throw FormatError(where + ": merge " + std::to_string(rank) + " \"" + s +
                                  "\" is not two tokens separated by one space");
            a = s.substr(0, space);
            b = s.substr(space + 1);
        } else if (merge.is_array() && merge.size() == 2 && merge[0].is_string() && merge[1].is_string()) {
            a = merge[0].get<std::string>();
            b = merge[1].get<std::string>();
        } else {
            throw FormatError(where + ": merge " + std::to_string(rank) +
                              " must be \"a b\" or [\"a\", \"b\"]");
        }
        const auto ia = m.vocab_.find(a), ib = m.vocab_.find(b), iab = m.vocab_.find(a + b);
        if (ia == m.vocab_.end() || ib == m.vocab_.end() || iab == m.vocab_.end())
            throw FormatError(where + ": merge " + std::to_string(rank) + " (" + a + " " + b +
                              ") joins tokens that are not in the vocabulary");
        // The last of two merges of the same pair wins, as in the library's map collected in rank order.
        m.merges_[pairKey(ia->second, ib->second)] = Merge{rank, iab->second};
        ++rank;
    }
    return m;
}

void HfBpeModel::appendSymbol(const std::string& c, std::vector<int64_t>& out) const {
    if (const auto it = vocab_.find(c); it != vocab_.end()) {
        out.push_back(it->second);
        return;
    }
    if (byteFallback_ && appendBytes(c, out))
        return;
    // Without an unknown token the character is left out, as the library leaves it.
    if (unk_ < 0 || (fuseUnk_ && !out.empty() && out.back() == unk_))
        return; // consecutive unknown characters become one unknown token
    out.push_back(unk_);
}

std::vector<int64_t> HfBpeModel::encode(const std::string& word) const {
    if (ignoreMerges_)
        if (const auto it = vocab_.find(word); it != vocab_.end())
            return {it->second};
    std::vector<int64_t> ids;
    for (const auto& c : codePoints(word))
        appendSymbol(c, ids);
    // As the library's Word::merge_all: the symbols as a linked list and the candidate merges in a heap, the
    // lowest rank first and the leftmost of equal ranks, so a long word (a run of CJK letters is one under
    // Llama 3's pattern) costs n log n, not n².
    struct Symbol {
        int64_t id;
        int prev, next;
        bool alive;
    };
    std::vector<Symbol> sym;
    for (std::size_t i = 0; i < ids.size(); ++i)
        sym.push_back(
            {ids[i], static_cast<int>(i) - 1, i + 1 < ids.size() ? static_cast<int>(i) + 1 : -1, true});
    struct Candidate {
        int rank, pos;
        int64_t id;
        bool operator>(const Candidate& o) const { return rank != o.rank ? rank > o.rank : pos > o.pos; }
    };
    std::priority_queue<Candidate, std::vector<Candidate>, std::greater<Candidate>> queue;
    auto consider = [&](int pos) {
        if (pos < 0 || sym[static_cast<std::size_t>(pos)].next < 0)
            return;
        const auto& a = sym[static_cast<std::size_t>(pos)];
        const auto it = merges_.find(pairKey(a.id, sym[static_cast<std::size_t>(a.next)].id));
        if (it != merges_.end())
            queue.push({it->second.rank, pos, it->second.id});
    };
    for (int i = 0; i + 1 < static_cast<int>(sym.size()); ++i)
        consider(i);
    while (!queue.empty()) {
        const auto top = queue.top();
        queue.pop();
        auto& a = sym[static_cast<std::size_t>(top.pos)];
        if (!a.alive || a.next < 0)
            continue;
        const auto it = merges_.find(pairKey(a.id, sym[static_cast<std::size_t>(a.next)].id));
        if (it == merges_.end() || it->second.id != top.id)
            continue; // the pair changed since the candidate was queued
        auto& b = sym[static_cast<std::size_t>(a.next)];
        a.id = top.id;
        b.alive = false;
        a.next = b.next;
        if (a.next >= 0)
            sym[static_cast<std::size_t>(a.next)].prev = top.pos;
        consider(a.prev);
        consider(top.pos);
    }
    std::vector<int64_t> out;
    for (const auto& s : sym)
        if (s.alive)
            out.push_back(s.id);
    return out;
}

} // namespace core
