#pragma once
// UTF-8 to ICU's UTF-16 strings and back, for the .cpp files that call ICU (UnicodeText, TextRegex); not part
// of core's public headers, which keep ICU out of their includers.

#include <unicode/unistr.h>

#include <string>

namespace core {

inline icu::UnicodeString toUnicode(const std::string& s) {
    return icu::UnicodeString::fromUTF8(icu::StringPiece(s.data(), static_cast<int32_t>(s.size())));
}

inline std::string toUtf8(const icu::UnicodeString& u) {
    std::string out;
    u.toUTF8String(out);
    return out;
}

} // namespace core
