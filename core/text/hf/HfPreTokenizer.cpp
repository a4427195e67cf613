#include "core/text/hf/HfPreTokenizer.h"

#include "core/base/Errors.h"
#include "core/text/ByteLevelBpe.h"
#include "core/text/UnicodeText.h"

#include <nlohmann/json.hpp>

namespace core {

using nlohmann::json;
using Behavior = HfPreTokenizer::Behavior;
using Piece = HfPreTokenizer::Piece;

namespace {

Behavior behaviorOf(const json& j, const std::string& where) {
    const std::string name = j.contains("behavior") && j["behavior"].is_string()
                                 ? j["behavior"].get<std::string>()
                                 : std::string("Isolated");
    const std::pair<const char*, Behavior> names[] = {{"Removed", Behavior::Removed},
                                                      {"Isolated", Behavior::Isolated},
                                                      {"MergedWithPrevious", Behavior::MergedWithPrevious},
                                                      {"MergedWithNext", Behavior::MergedWithNext},
                                                      {"Contiguous", Behavior::Contiguous}};
    for (const auto& [n, b] : names)
        if (name == n)
            return b;
    throw FormatError(where + ": unknown split behavior \"" + name + "\"");
}

// The stretches of text between and at the matches, each flagged as a match or not; then the behavior's
// grouping, as the library's NormalizedString::split does it.
std::vector<Piece> splitAt(const Piece& p, const std::vector<std::pair<std::size_t, std::size_t>>& found,
                           Behavior behavior, bool invert) {
    struct Part {
        std::string text;
        bool match;
        std::size_t begin;
    };
    std::vector<Part> parts;
    std::size_t at = 0;
    for (const auto& [b, e] : found) {
        if (b > at)
            parts.push_back({p.text.substr(at, b - at), invert, at});
        parts.push_back({p.text.substr(b, e - b), !invert, b});
        at = e;
    }
    if (at < p.text.size())
        parts.push_back({p.text.substr(at), invert, at});
    std::vector<Part> grouped;
    for (auto& part : parts) {
        switch (behavior) {
        case Behavior::Removed:
            if (!part.match)
                grouped.push_back(std::move(part));
            break;
        case Behavior::Isolated:
            grouped.push_back(std::move(part));
            break;
        case Behavior::Contiguous: // neighbours alike (both matched or both not) become one, as there
            if (!grouped.empty() && grouped.back().match == part.match)
                grouped.back().text += part.text;
            else
                grouped.push_back(std::move(part));
            break;
        case Behavior::MergedWithPrevious:
            if (!grouped.empty() && part.match && !grouped.back().match)
                grouped.back().text += part.text, grouped.back().match = true;
            else
                grouped.push_back(std::move(part));
            break;
        case Behavior::MergedWithNext:
            if (!grouped.empty() && !part.match && grouped.back().match)
                grouped.back().text += part.text, grouped.back().match = false;
            else
                grouped.push_back(std::move(part));
            break;
        }
    }
    std::vector<Piece> out;
    for (auto& g : grouped)
        if (!g.text.empty())
            out.push_back({std::move(g.text), p.atStart && g.begin == 0});
    return out;
}

std::vector<std::pair<std::size_t, std::size_t>> literalMatches(const std::string& text,
                                                                const std::string& what) {
    std::vector<std::pair<std::size_t, std::size_t>> out;
    if (what.empty())
        return out;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size()))
        out.emplace_back(at, at + what.size());
    return out;
}

// GPT-2's split, which the ByteLevel pre-tokenizer applies with use_regex.
constexpr const char* kGpt2Pattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

// Punctuation as BERT counts it: every ASCII non-alphanumeric printable character, and Unicode's P classes.
constexpr const char* kPunctuation = R"([\p{P}\x{21}-\x{2F}\x{3A}-\x{40}\x{5B}-\x{60}\x{7B}-\x{7E}])";

} // namespace

void HfPreTokenizer::parse(const json& j, const std::string& source, std::vector<Step>& out) {
    if (!j.is_object() || !j.contains("type") || !j["type"].is_string())
        throw FormatError(source + ": a pre_tokenizer must be an object with a \"type\"");
    const auto type = j["type"].get<std::string>();
    const auto where = source + ": pre_tokenizer " + type;
    auto flag = [&](const char* key, bool fallback) {
        return j.contains(key) && j[key].is_boolean() ? j[key].get<bool>() : fallback;
    };
    if (type == "Sequence") {
        if (!j.contains("pretokenizers") || !j["pretokenizers"].is_array())
            throw FormatError(where + ": 'pretokenizers' must be a list");
        for (const auto& p : j["pretokenizers"])
            parse(p, source, out);
        return;
    }
    Step s;
    s.type = type;
    if (type == "ByteLevel") {
        s.addPrefixSpace = flag("add_prefix_space", true);
        s.useRegex = flag("use_regex", true);
        if (s.useRegex)
            s.regex = std::make_shared<const TextRegex>(libraryRegex(kGpt2Pattern), where);
    } else if (type == "Split") {
        const auto& p = j.contains("pattern") ? j["pattern"] : json();
        if (p.is_object() && p.contains("String") && p["String"].is_string())
            s.literal = p["String"].get<std::string>();
        else if (p.is_object() && p.contains("Regex") && p["Regex"].is_string())
            s.regex = std::make_shared<const TextRegex>(libraryRegex(p["Regex"].get<std::string>()), where,
                                                        p["Regex"].get<std::string>());
        else
            throw FormatError(where + ": 'pattern' must be {\"String\": …} or {\"Regex\": …}");
        // The library compiles a String pattern as an escaped regex: an empty one matches between every
        // two characters, which is how it splits them.
        if (s.literal.empty() && !s.regex)
            s.regex = std::make_shared<const TextRegex>("", where);
        s.behavior = behaviorOf(j, where);
        s.invert = flag("invert", false);
    } else if (type == "Metaspace") {
        s.replacement = j.contains("replacement") && j["replacement"].is_string()
                            ? j["replacement"].get<std::string>()
                            : std::string("\u2581");
        // Older files say add_prefix_space; newer ones prepend_scheme.
        s.prependScheme = j.contains("prepend_scheme") && j["prepend_scheme"].is_string()
                              ? j["prepend_scheme"].get<std::string>()
                              : (flag("add_prefix_space", true) ? "always" : "never");
        if (s.prependScheme != "always" && s.prependScheme != "first" && s.prependScheme != "never")
            throw FormatError(where + ": 'prepend_scheme' must be always, first or never");
        s.split = flag("split", true);
    } else if (type == "Whitespace") {
        s.regex = std::make_shared<const TextRegex>(libraryRegex(R"(\w+|[^\w\s]+)"), where);
        s.behavior = Behavior::Removed;
        s.invert = true; // the matches are the words kept
    } else if (type == "WhitespaceSplit") {
        s.regex = std::make_shared<const TextRegex>(libraryRegex(R"(\s+)"), where);
        s.behavior = Behavior::Removed;
    } else if (type == "BertPreTokenizer") {
        // Whitespace removed, then every punctuation character its own word.
        Step whitespace;
        whitespace.type = "WhitespaceSplit";
        whitespace.regex = std::make_shared<const TextRegex>(libraryRegex(R"(\s+)"), where);
        whitespace.behavior = Behavior::Removed;
        out.push_back(std::move(whitespace));
        s.type = "Punctuation";
        s.regex = std::make_shared<const TextRegex>(kPunctuation, where);
        s.behavior = Behavior::Isolated;
    } else if (type == "Punctuation") {
        s.regex = std::make_shared<const TextRegex>(kPunctuation, where);
        s.behavior = behaviorOf(j, where);
    } else if (type == "Digits") {
        s.regex = std::make_shared<const TextRegex>(
            flag("individual_digits", false) ? R"(\p{N})" : R"(\p{N}+)", where);
        s.behavior = Behavior::Isolated;
    } else {
        throw FormatError(where + " is not supported (attnscope reads Sequence, ByteLevel, Split, Metaspace, "
                                  "Whitespace, WhitespaceSplit, BertPreTokenizer, Punctuation and Digits)");
    }
    out.push_back(std::move(s));
}

HfPreTokenizer HfPreTokenizer::fromJson(const json& j, const std::string& source) {
    HfPreTokenizer p;
    if (!j.is_null())
        parse(j, source, p.steps_);
    return p;
}

bool HfPreTokenizer::byteLevel() const {
    for (const auto& s : steps_)
        if (s.type == "ByteLevel")
            return true;
    return false;
}

std::vector<Piece> HfPreTokenizer::run(const Step& s, const Piece& p) {
    if (s.type == "ByteLevel") {
        std::string text = p.text;
        if (s.addPrefixSpace && !text.empty() && text.front() != ' ')
            text.insert(text.begin(), ' ');
        std::vector<Piece> out;
        if (s.regex) {
            for (auto& word : splitAt({text, p.atStart}, s.regex->matches(text), Behavior::Isolated, false))
                out.push_back({ByteLevelBpe::toUnicodeAlphabet(word.text), word.atStart});
        } else {
            out.push_back({ByteLevelBpe::toUnicodeAlphabet(text), p.atStart});
        }
        return out;
    }
    if (s.type == "Metaspace") {
        std::string text;
        for (const auto& c : codePoints(p.text))
            text += c == " " ? s.replacement : c;
        const bool prepend = s.prependScheme == "always" || (s.prependScheme == "first" && p.atStart);
        if (prepend && !text.empty() && text.compare(0, s.replacement.size(), s.replacement) != 0)
            text = s.replacement + text;
        const Piece whole{std::move(text), p.atStart};
        return s.split ? splitAt(whole, literalMatches(whole.text, s.replacement), Behavior::MergedWithNext,
                                 false)
                       : std::vector<Piece>{whole};
    }
    const auto found = s.regex ? s.regex->matches(p.text) : literalMatches(p.text, s.literal);
    return splitAt(p, found, s.behavior, s.invert);
}

std::vector<Piece> HfPreTokenizer::apply(const std::string& text, bool atStart) const {
    std::vector<Piece> pieces{{text, atStart}};
    for (const auto& s : steps_) {
        std::vector<Piece> next;
        for (const auto& p : pieces)
            for (auto& q : run(s, p))
                next.push_back(std::move(q));
        pieces = std::move(next);
    }
    return pieces;
}

} // namespace core
