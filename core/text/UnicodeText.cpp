#include "core/text/UnicodeText.h"

#include "core/base/Errors.h"
#include "core/text/IcuStrings.h"

#include <unicode/locid.h>
#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>
#include <unicode/utf8.h>

namespace core {

namespace {

// Calls f(c) for every code point of UTF-8 text and collects what it appends.
template <typename F> std::string mapCodePoints(const std::string& text, F f) {
    std::string out;
    const auto* s = reinterpret_cast<const uint8_t*>(text.data());
    const auto n = static_cast<int32_t>(text.size());
    for (int32_t i = 0; i < n;) {
        const int32_t start = i;
        UChar32 c;
        U8_NEXT(s, i, n, c);
        f(c < 0 ? 0xFFFD : c,
          text.substr(static_cast<std::size_t>(start), static_cast<std::size_t>(i - start)), out);
    }
    return out;
}

} // namespace

std::string normalizeText(const std::string& text, NormalForm form) {
    UErrorCode status = U_ZERO_ERROR;
    const icu::Normalizer2* n = form == NormalForm::NFC    ? icu::Normalizer2::getNFCInstance(status)
                                : form == NormalForm::NFD  ? icu::Normalizer2::getNFDInstance(status)
                                : form == NormalForm::NFKC ? icu::Normalizer2::getNFKCInstance(status)
                                                           : icu::Normalizer2::getNFKDInstance(status);
    if (U_FAILURE(status))
        throw Error(std::string("ICU has no normalizer: ") + u_errorName(status));
    const auto out = n->normalize(toUnicode(text), status);
    if (U_FAILURE(status))
        throw Error(std::string("ICU could not normalize the text: ") + u_errorName(status));
    return toUtf8(out);
}

std::string lowercaseText(const std::string& text) {
    // Code point by code point, as the tokenizers library lowercases (Rust's char::to_lowercase): full
    // mappings ("İ" → "i̇") but no context, so a final capital sigma becomes σ, not ς.
    const auto u = toUnicode(text);
    icu::UnicodeString out;
    for (int32_t i = 0; i < u.length();) {
        const UChar32 c = u.char32At(i);
        icu::UnicodeString one(c);
        out.append(one.toLower(icu::Locale::getRoot()));
        i += U16_LENGTH(c);
    }
    return toUtf8(out);
}

std::string stripAccents(const std::string& text) {
    const auto decomposed = toUnicode(normalizeText(text, NormalForm::NFD));
    icu::UnicodeString out;
    for (int32_t i = 0; i < decomposed.length();) {
        const UChar32 c = decomposed.char32At(i);
        if (u_charType(c) != U_NON_SPACING_MARK)
            out.append(c);
        i += U16_LENGTH(c);
    }
    return toUtf8(out);
}

std::string libraryRegex(const std::string& pattern) {
    std::string out;
    int depth = 0; // inside a [...] class: a class there is written without its own brackets
    for (std::size_t i = 0; i < pattern.size(); ++i) {
        const char c = pattern[i];
        if (c == '\\' && i + 1 < pattern.size()) {
            const char next = pattern[++i];
            const char* inside = next == 's'   ? "\\p{White_Space}"
                                 : next == 'w' ? "\\p{L}\\p{M}\\p{N}\\p{Pc}"
                                               : nullptr;
            if (inside)
                out += depth > 0 ? std::string(inside) : "[" + std::string(inside) + "]";
            else if (next == 'S')
                out += depth > 0 ? "[^\\p{White_Space}]" : "\\P{White_Space}";
            else if (next == 'W')
                out += "[^\\p{L}\\p{M}\\p{N}\\p{Pc}]";
            else
                out.append({c, next});
            continue;
        }
        if (c == '[')
            ++depth;
        else if (c == ']' && depth > 0)
            --depth;
        out += c;
    }
    return out;
}

std::string removeMarks(const std::string& text) {
    const auto u = toUnicode(text);
    icu::UnicodeString out;
    for (int32_t i = 0; i < u.length();) {
        const UChar32 c = u.char32At(i);
        if ((U_GET_GC_MASK(c) & U_GC_M_MASK) == 0)
            out.append(c);
        i += U16_LENGTH(c);
    }
    return toUtf8(out);
}

std::vector<std::string> codePoints(const std::string& text) {
    std::vector<std::string> out;
    mapCodePoints(text, [&out](UChar32, const std::string& bytes, std::string&) { out.push_back(bytes); });
    return out;
}

std::string validUtf8(const std::string& text) {
    return toUtf8(toUnicode(text));
}

std::string bertCleanText(const std::string& text) {
    // As the tokenizers library's BertNormalizer: is_control is Cc, Cf, Cn or Co but for \t \n \r, which
    // count as whitespace; is_whitespace is those three, the space and the category Zs.
    return mapCodePoints(text, [](UChar32 c, const std::string& bytes, std::string& out) {
        const auto type = u_charType(c);
        const bool control = c != '\t' && c != '\n' && c != '\r' &&
                             (type == U_CONTROL_CHAR || type == U_FORMAT_CHAR || type == U_UNASSIGNED ||
                              type == U_PRIVATE_USE_CHAR || type == U_SURROGATE);
        if (c == 0 || c == 0xFFFD || control) // removed first: U+0085 is a control, so it goes
            return;
        out += u_hasBinaryProperty(c, UCHAR_WHITE_SPACE) ? std::string(" ") : bytes;
    });
}

std::string spaceOutCjk(const std::string& text) {
    return mapCodePoints(text, [](UChar32 c, const std::string& bytes, std::string& out) {
        const bool cjk = (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) ||
                         (c >= 0x20000 && c <= 0x2A6DF) || (c >= 0x2A700 && c <= 0x2B73F) ||
                         (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
                         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
        out += cjk ? " " + bytes + " " : bytes;
    });
}

std::string replaceText(const std::string& text, const std::string& from, const std::string& to) {
    if (from.empty())
        return text;
    std::string out;
    std::size_t i = 0;
    for (std::size_t at; (at = text.find(from, i)) != std::string::npos; i = at + from.size())
        out.append(text, i, at - i).append(to);
    return out.append(text, i, std::string::npos);
}

char32_t firstCodePoint(const std::string& text) {
    if (text.empty())
        return 0;
    const auto* s = reinterpret_cast<const uint8_t*>(text.data());
    int32_t i = 0;
    UChar32 c;
    U8_NEXT(s, i, static_cast<int32_t>(text.size()), c);
    return c < 0 ? 0xFFFD : static_cast<char32_t>(c);
}

std::string stripWhitespace(const std::string& text, bool left, bool right) {
    const auto points = codePoints(text);
    std::size_t b = 0, e = points.size();
    while (left && b < e && isUnicodeSpace(firstCodePoint(points[b])))
        ++b;
    while (right && e > b && isUnicodeSpace(firstCodePoint(points[e - 1])))
        --e;
    std::string out;
    for (std::size_t i = b; i < e; ++i)
        out += points[i];
    return out;
}

std::size_t skipSpaceBackward(const std::string& text, std::size_t floor, std::size_t at) {
    const auto* s = reinterpret_cast<const uint8_t*>(text.data());
    auto i = static_cast<int32_t>(at);
    while (i > static_cast<int32_t>(floor)) {
        int32_t j = i;
        UChar32 c;
        U8_PREV(s, static_cast<int32_t>(floor), j, c);
        if (c < 0 || !u_hasBinaryProperty(c, UCHAR_WHITE_SPACE))
            break;
        i = j;
    }
    return static_cast<std::size_t>(i);
}

std::size_t skipSpaceForward(const std::string& text, std::size_t at) {
    const auto* s = reinterpret_cast<const uint8_t*>(text.data());
    const auto n = static_cast<int32_t>(text.size());
    auto i = static_cast<int32_t>(at);
    while (i < n) {
        int32_t j = i;
        UChar32 c;
        U8_NEXT(s, j, n, c);
        if (c < 0 || !u_hasBinaryProperty(c, UCHAR_WHITE_SPACE))
            break;
        i = j;
    }
    return static_cast<std::size_t>(i);
}

bool isUnicodeSpace(char32_t c) {
    return u_hasBinaryProperty(static_cast<UChar32>(c), UCHAR_WHITE_SPACE);
}

bool isWordChar(char32_t c) {
    const auto u = static_cast<UChar32>(c);
    return u_hasBinaryProperty(u, UCHAR_ALPHABETIC) ||
           (U_GET_GC_MASK(u) & (U_GC_M_MASK | U_GC_ND_MASK | U_GC_PC_MASK)) ||
           u_hasBinaryProperty(u, UCHAR_JOIN_CONTROL);
}

char32_t codePointBefore(const std::string& text, std::size_t at) {
    if (at == 0)
        return 0;
    const auto* s = reinterpret_cast<const uint8_t*>(text.data());
    auto i = static_cast<int32_t>(at);
    UChar32 c;
    U8_PREV(s, 0, i, c);
    return c < 0 ? 0xFFFD : static_cast<char32_t>(c);
}

} // namespace core
