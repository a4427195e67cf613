#include "core/text/hf/HfAddedTokens.h"

#include "core/base/Errors.h"
#include "core/text/UnicodeText.h"
#include "core/text/hf/HfNormalizer.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace core {

using nlohmann::json;

namespace {

// A flag of one token: absent is `fallback`; null is refused, as the library's reader refuses it.
bool flagOf(const json& a, const char* key, bool fallback, const std::string& where) {
    if (!a.contains(key))
        return fallback;
    if (!a[key].is_boolean())
        throw FormatError(where + ": '" + key + "' is " + (a[key].is_null() ? "null" : a[key].dump()) +
                          "; it must be true or false");
    return a[key].get<bool>();
}

// Whether the token found at [begin, end) of the text stands as a word of its own.
bool singleWordAt(const std::string& text, std::size_t begin, std::size_t end) {
    const bool spaceBefore = begin == 0 || !isWordChar(codePointBefore(text, begin));
    const bool spaceAfter = end == text.size() || !isWordChar(firstCodePoint(text.substr(end, 4)));
    return spaceBefore && spaceAfter;
}

} // namespace

HfAddedTokens HfAddedTokens::fromJson(const json& list, const std::string& source) {
    HfAddedTokens out;
    if (list.is_null())
        return out;
    if (!list.is_array())
        throw FormatError(source + ": 'added_tokens' must be a list");
    for (const auto& a : list) {
        const auto where =
            source + ": added token " + (a.is_object() && a.contains("id") ? a["id"].dump() : "?");
        if (!a.is_object() || !a.contains("id") || !a["id"].is_number_unsigned() ||
            a["id"].get<uint64_t>() > UINT32_MAX || !a.contains("content") || !a["content"].is_string())
            throw FormatError(where + ": it needs a whole \"id\" below 2^32 and a \"content\" string");
        Token t;
        t.content = a["content"].get<std::string>();
        t.id = a["id"].get<int64_t>();
        if (t.content.empty())
            throw FormatError(where + " is empty");
        t.special = flagOf(a, "special", false, where);
        t.singleWord = flagOf(a, "single_word", false, where);
        t.lstrip = flagOf(a, "lstrip", false, where);
        t.rstrip = flagOf(a, "rstrip", false, where);
        t.normalized = flagOf(a, "normalized", !t.special, where);
        out.tokens_.push_back(std::move(t));
    }
    return out;
}

void HfAddedTokens::index(const HfNormalizer& normalizer) {
    raw_ = TokenTrie();
    normalized_ = TokenTrie();
    for (std::size_t i = 0; i < tokens_.size(); ++i) {
        const auto& t = tokens_[i];
        if (!t.normalized) {
            raw_.add(t.content, static_cast<int32_t>(i));
        } else if (const auto written = normalizer.apply(t.content); !written.empty()) {
            normalized_.add(written, static_cast<int32_t>(i)); // a token its normalizer erases is never found
        }
    }
}

std::vector<HfAddedTokens::Part> HfAddedTokens::split(const std::string& text, bool normalizedPass,
                                                      std::size_t* steps) const {
    std::vector<Part> out;
    std::size_t from = 0; // where the text not yet cut starts
    // As the library's find_matches: a match not taken (single_word) or widened (lstrip, rstrip) does not
    // change where the trie goes on looking, the end of the match it found.
    for (const auto& m : (normalizedPass ? normalized_ : raw_).matches(text, steps)) {
        const auto& t = tokens_[static_cast<std::size_t>(m.value)];
        if (t.singleWord && !singleWordAt(text, m.begin, m.end))
            continue;
        if (m.end <= from) // inside the whitespace the token before took along
            continue;
        const auto begin = std::max(t.lstrip ? skipSpaceBackward(text, from, m.begin) : m.begin, from);
        const auto end = t.rstrip ? skipSpaceForward(text, m.end) : m.end;
        if (from < begin)
            out.push_back({from, begin, nullptr});
        out.push_back({begin, end, &t});
        from = end;
    }
    if (from < text.size())
        out.push_back({from, text.size(), nullptr});
    return out;
}

} // namespace core
