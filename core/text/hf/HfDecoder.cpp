#include "core/text/hf/HfDecoder.h"

#include "core/base/Errors.h"
#include "core/text/ByteLevelBpe.h"
#include "core/text/UnicodeText.h"

#include <nlohmann/json.hpp>

#include <cctype>

namespace core {

using nlohmann::json;

namespace {

std::string stringOr(const json& j, const char* key, const std::string& fallback, const std::string& where) {
    if (!j.contains(key) || j[key].is_null())
        return fallback;
    if (!j[key].is_string())
        throw FormatError(where + ": '" + key + "' must be a string");
    return j[key].get<std::string>();
}

bool flagOr(const json& j, const char* key, bool fallback, const std::string& where) {
    if (!j.contains(key) || j[key].is_null())
        return fallback;
    if (!j[key].is_boolean())
        throw FormatError(where + ": '" + key + "' must be true or false");
    return j[key].get<bool>();
}

int countOr(const json& j, const char* key, const std::string& where) {
    if (!j.contains(key) || j[key].is_null())
        return 0;
    if (!j[key].is_number_unsigned() || j[key].get<uint64_t>() > 1000)
        throw FormatError(where + ": '" + key + "' must be a whole number from 0 to 1000");
    return j[key].get<int>();
}

// The tokenizers library's clean-up of decoded WordPiece text: no space before punctuation and contractions.
std::string cleanedUp(std::string t) {
    const std::pair<const char*, const char*> rules[] = {
        {" .", "."},   {" ?", "?"},           {" !", "!"},   {" ,", ","},     {" ' ", "'"},   {" n't", "n't"},
        {" 'm", "'m"}, {" do not", " don't"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"}};
    for (const auto& [from, to] : rules)
        t = replaceText(t, from, to);
    return t;
}

// "<0xE2>" → 0xE2; −1 for anything else.
int fallbackByte(const std::string& t) {
    if (t.size() != 6 || t.compare(0, 3, "<0x") != 0 || t[5] != '>' ||
        !std::isxdigit(static_cast<unsigned char>(t[3])) || !std::isxdigit(static_cast<unsigned char>(t[4])))
        return -1;
    return std::stoi(t.substr(3, 2), nullptr, 16);
}

} // namespace

void HfDecoder::parse(const json& j, const std::string& source, std::vector<Step>& out) {
    if (!j.is_object() || !j.contains("type") || !j["type"].is_string())
        throw FormatError(source + ": a decoder must be an object with a \"type\"");
    const auto type = j["type"].get<std::string>();
    const auto where = source + ": decoder " + type;
    if (type == "Sequence") {
        if (!j.contains("decoders") || !j["decoders"].is_array())
            throw FormatError(where + ": 'decoders' must be a list");
        for (const auto& d : j["decoders"])
            parse(d, source, out);
        return;
    }
    Step s;
    s.type = type;
    if (type == "Replace") {
        const auto& p = j.contains("pattern") ? j["pattern"] : json();
        if (!p.is_object() || !p.contains("String") || !p["String"].is_string())
            throw FormatError(where + ": only a {\"String\": …} pattern is supported");
        s.from = p["String"].get<std::string>();
        s.to = stringOr(j, "content", "", where);
    } else if (type == "Strip") {
        s.content = stringOr(j, "content", " ", where);
        if (codePoints(s.content).size() != 1)
            throw FormatError(where + ": 'content' must be one character");
        s.start = countOr(j, "start", where);
        s.stop = countOr(j, "stop", where);
    } else if (type == "Metaspace") {
        s.replacement = stringOr(j, "replacement", "\u2581", where);
        s.prependSpace =
            stringOr(j, "prepend_scheme", flagOr(j, "add_prefix_space", true, where) ? "always" : "never",
                     where) != "never";
    } else if (type == "WordPiece") {
        s.prefix = stringOr(j, "prefix", "##", where);
        s.cleanup = flagOr(j, "cleanup", true, where);
    } else if (type != "ByteLevel" && type != "ByteFallback" && type != "Fuse") {
        throw FormatError(where + " is not supported (attnscope reads Sequence, ByteLevel, Replace, "
                                  "ByteFallback, Fuse, Strip, Metaspace and WordPiece)");
    }
    out.push_back(std::move(s));
}

HfDecoder HfDecoder::fromJson(const json& j, const std::string& source) {
    HfDecoder d;
    if (!j.is_null()) {
        parse(j, source, d.steps_);
        d.none_ = false;
    }
    return d;
}

std::vector<std::string> HfDecoder::run(std::vector<std::string> tokens, bool whole) const {
    for (const auto& s : steps_) {
        if (s.type == "ByteLevel") {
            // GPT-2's alphabet back to bytes; for a whole sequence the bytes are joined first, so a character
            // split between tokens is whole again, and what is still not UTF-8 becomes U+FFFD.
            for (auto& t : tokens) {
                std::string raw;
                if (ByteLevelBpe::fromUnicodeAlphabet(t, raw))
                    t = std::move(raw);
            }
            if (whole) {
                std::string all;
                for (const auto& t : tokens)
                    all += t;
                tokens = {validUtf8(all)};
            }
        } else if (s.type == "Replace") {
            for (auto& t : tokens)
                t = replaceText(t, s.from, s.to);
        } else if (s.type == "ByteFallback" && whole) {
            // Runs of byte tokens become their text when they are valid UTF-8, else one U+FFFD a byte.
            std::vector<std::string> out;
            std::string bytes;
            std::size_t count = 0;
            auto flush = [&] {
                if (count > 0 && validUtf8(bytes) == bytes)
                    out.push_back(bytes);
                else
                    for (std::size_t i = 0; i < count; ++i)
                        out.push_back("\uFFFD");
                bytes.clear();
                count = 0;
            };
            for (auto& t : tokens) {
                const int b = fallbackByte(t);
                if (b >= 0) {
                    bytes += static_cast<char>(b);
                    ++count;
                } else {
                    flush();
                    out.push_back(std::move(t));
                }
            }
            flush();
            tokens = std::move(out);
        } else if (s.type == "Fuse" && whole) {
            std::string all;
            for (const auto& t : tokens)
                all += t;
            tokens = {all};
        } else if (s.type == "Strip" && whole) {
            const auto n = s.content.size();
            for (auto& t : tokens) {
                for (int i = 0; i < s.start && t.compare(0, n, s.content) == 0; ++i)
                    t.erase(0, n);
                for (int i = 0; i < s.stop && t.size() >= n && t.compare(t.size() - n, n, s.content) == 0;
                     ++i)
                    t.erase(t.size() - n);
            }
        } else if (s.type == "Metaspace") {
            // As the library: every "▁" of the first token goes (it stood for the prepended space), the
            // others are spaces.
            for (std::size_t i = 0; i < tokens.size(); ++i)
                tokens[i] =
                    replaceText(tokens[i], s.replacement, whole && i == 0 && s.prependSpace ? "" : " ");
        } else if (s.type == "WordPiece") {
            for (std::size_t i = 0; i < tokens.size(); ++i) {
                if (whole && i > 0) { // the first token keeps its prefix, as in the library
                    if (tokens[i].compare(0, s.prefix.size(), s.prefix) == 0)
                        tokens[i].erase(0, s.prefix.size());
                    else
                        tokens[i].insert(0, " ");
                }
                if (s.cleanup && whole)
                    tokens[i] = cleanedUp(tokens[i]);
            }
        }
    }
    return tokens;
}

std::string HfDecoder::decode(const std::vector<std::string>& tokens) const {
    std::string out;
    const auto parts = run(tokens, true);
    for (std::size_t i = 0; i < parts.size(); ++i)
        out += (none_ && i > 0 ? " " : "") + parts[i]; // without a decoder the library joins with spaces
    return out;
}

std::string HfDecoder::tokenText(const std::string& token) const {
    return run({token}, false).front();
}

} // namespace core
