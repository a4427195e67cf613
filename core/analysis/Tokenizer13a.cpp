// sacreBLEU's text handling, step for step: Python's str semantics over Unicode code points (strict UTF-8
// decoding, str.isspace, str.split, str.rstrip) and the 13a tokenizer (tokenizers/tokenizer_13a.py,
// tokenizer_re.py).

#include "core/analysis/Tokenizer13a.h"

#include "core/base/Errors.h"

#include <algorithm>
#include <cstddef>
#include <iterator>

namespace core {
namespace text13a {

// What Python's str.isspace() accepts: the characters str.split() splits on and str.rstrip() strips.
bool isPySpace(char32_t c) {
    return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 || c == 0x1680 ||
           (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F ||
           c == 0x3000;
}

// Strict, like Python's decoder: overlong forms, surrogates and truncated sequences are errors, because a
// score over mis-decoded text would be silently wrong.
Text decodeUtf8(const std::string& bytes, const std::string& what) {
    Text out;
    out.reserve(bytes.size());
    std::size_t i = 0;
    while (i < bytes.size()) {
        const auto lead = static_cast<unsigned char>(bytes[i]);
        if (lead < 0x80) {
            out.push_back(lead);
            ++i;
            continue;
        }
        std::size_t len = 0;
        char32_t cp = 0;
        char32_t smallest = 0;
        if ((lead & 0xE0) == 0xC0) {
            len = 2;
            cp = lead & 0x1F;
            smallest = 0x80;
        } else if ((lead & 0xF0) == 0xE0) {
            len = 3;
            cp = lead & 0x0F;
            smallest = 0x800;
        } else if ((lead & 0xF8) == 0xF0) {
            len = 4;
            cp = lead & 0x07;
            smallest = 0x10000;
        }
        bool ok = len > 0 && i + len <= bytes.size();
        for (std::size_t k = 1; ok && k < len; ++k) {
            const auto b = static_cast<unsigned char>(bytes[i + k]);
            ok = (b & 0xC0) == 0x80;
            cp = (cp << 6) | (b & 0x3F);
        }
        if (!ok || cp < smallest || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            throw InputError(what + " is not valid UTF-8 (byte " + std::to_string(i) + ")");
        out.push_back(cp);
        i += len;
    }
    return out;
}

std::string encodeUtf8(const Text& text) {
    std::string out;
    out.reserve(text.size());
    for (const char32_t c : text) {
        if (c < 0x80) {
            out.push_back(static_cast<char>(c));
        } else if (c < 0x800) {
            out.push_back(static_cast<char>(0xC0 | (c >> 6)));
            out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
        } else if (c < 0x10000) {
            out.push_back(static_cast<char>(0xE0 | (c >> 12)));
            out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
            out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
        } else {
            out.push_back(static_cast<char>(0xF0 | (c >> 18)));
            out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
            out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
            out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
        }
    }
    return out;
}

// Python's str.split() without arguments.
std::vector<Text> splitWords(const Text& text) {
    std::vector<Text> words;
    std::size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && isPySpace(text[i]))
            ++i;
        const std::size_t start = i;
        while (i < text.size() && !isPySpace(text[i]))
            ++i;
        if (i > start)
            words.push_back(text.substr(start, i - start));
    }
    return words;
}

namespace {

// Python's str.replace(): one left-to-right pass, so "&amp;lt;" becomes "&lt;" and only a later
// replacement turns it into "<".
Text replaceAll(const Text& text, const Text& from, const Text& to) {
    Text out;
    out.reserve(text.size());
    std::size_t i = 0;
    for (std::size_t hit = text.find(from); hit != Text::npos; hit = text.find(from, i)) {
        out.append(text, i, hit - i);
        out += to;
        i = hit + from.size();
    }
    out.append(text, i, Text::npos);
    return out;
}

bool isDigit(char32_t c) {
    return c >= U'0' && c <= U'9';
}
bool isPeriodOrComma(char32_t c) {
    return c == U'.' || c == U',';
}

// The class [\{-\~\[-\` -\&\(-\+\:-\@\/]: ASCII symbols and punctuation except ' , - . (and the space,
// which it also pads, harmlessly).
bool isSplitSymbol(char32_t c) {
    return (c >= 0x7B && c <= 0x7E) || (c >= 0x5B && c <= 0x60) || (c >= 0x20 && c <= 0x26) ||
           (c >= 0x28 && c <= 0x2B) || (c >= 0x3A && c <= 0x40) || c == 0x2F;
}

// re.sub() of a two-character pattern: matches are taken left to right and never overlap, so after a match
// the scan resumes behind its second character ("a.." keeps its last period unsplit by this rule).
template <typename Match, typename Emit> Text substitutePairs(const Text& text, Match match, Emit emit) {
    Text out;
    out.reserve(text.size() + text.size() / 2);
    std::size_t i = 0;
    while (i < text.size()) {
        if (i + 1 < text.size() && match(text[i], text[i + 1])) {
            emit(out, text[i], text[i + 1]);
            i += 2;
        } else {
            out.push_back(text[i++]);
        }
    }
    return out;
}

} // namespace

std::vector<Text> tokens13a(Text line) {
    line = replaceAll(line, U"<skipped>", U"");
    line = replaceAll(line, U"-\n", U"");
    line = replaceAll(line, U"\n", U" ");
    line = replaceAll(line, U"&quot;", U"\"");
    line = replaceAll(line, U"&amp;", U"&");
    line = replaceAll(line, U"&lt;", U"<");
    line = replaceAll(line, U"&gt;", U">");

    Text padded = U" ";
    for (const char32_t c : line) {
        if (isSplitSymbol(c))
            padded += {U' ', c, U' '};
        else
            padded.push_back(c);
    }
    padded.push_back(U' ');
    // A period or comma is split off unless a digit precedes it, then unless a digit follows it: "3,000.50"
    // survives whole, "end." does not. A dash is split off after a digit ("1990-2000").
    padded = substitutePairs(
        padded, [](char32_t a, char32_t b) { return !isDigit(a) && isPeriodOrComma(b); },
        [](Text& out, char32_t a, char32_t b) {
            out += {a, U' ', b, U' '};
        });
    padded = substitutePairs(
        padded, [](char32_t a, char32_t b) { return isPeriodOrComma(a) && !isDigit(b); },
        [](Text& out, char32_t a, char32_t b) {
            out += {U' ', a, U' ', b};
        });
    padded = substitutePairs(
        padded, [](char32_t a, char32_t b) { return isDigit(a) && b == U'-'; },
        [](Text& out, char32_t a, char32_t b) {
            out += {a, U' ', b, U' '};
        });
    return splitWords(padded);
}

Text rstripped(Text text) {
    while (!text.empty() && isPySpace(text.back()))
        text.pop_back();
    return text;
}

} // namespace text13a

std::string tokenize13a(const std::string& line) {
    std::string out;
    for (const text13a::Text& token :
         text13a::tokens13a(text13a::decodeUtf8(line, "tokenize13a: the text"))) {
        if (!out.empty())
            out.push_back(' ');
        out += text13a::encodeUtf8(token);
    }
    return out;
}

} // namespace core
