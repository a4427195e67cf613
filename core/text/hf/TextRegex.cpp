#include "core/text/hf/TextRegex.h"

#include "core/base/Errors.h"
#include "core/text/IcuStrings.h"

#include <unicode/regex.h>
#include <unicode/unistr.h>
#include <unicode/utf16.h>
#include <unicode/utf8.h>

namespace core {

namespace {

// ICU counts a match's work in ticks of 10,000 saved backtracking states (about 0.3 ms here). GPT-2's and
// Llama 3's patterns spend 3 ticks on 10,000 characters of prose; one text's matches may spend a quarter
// second's worth plus 1 tick per 16 UTF-16 units, two hundred times that rate, which no sound pattern reaches
// and which cuts (\w+\s?)+$ off long before its 2^40 steps on 40 letters and a "!".
constexpr int32_t kBaseTicks = 1000;
constexpr int32_t kUnitsPerTick = 16;
// The backtracking stack ICU may grow to (its default, stated so it is a decision): 32 MB.
constexpr int32_t kStackBytes = 32 * 1000 * 1000;

// Texts a pattern with nested repetitions backtracks on without end: runs of word characters, spaced
// words, digits and spaces that the pattern's end fails to match, and the example the program opens with.
const char* const kProbes[] = {
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!",
    "a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a !",
    "1234567890123456789012345678901234567890!",
    "                                        !",
    "The old man walked to the small white house.",
};

} // namespace

struct TextRegex::Impl {
    std::unique_ptr<icu::RegexPattern> pattern;
    std::string source, shown;

    // A matcher over u with the bounds set.
    std::unique_ptr<icu::RegexMatcher> matcher(const icu::UnicodeString& u) const {
        UErrorCode status = U_ZERO_ERROR;
        std::unique_ptr<icu::RegexMatcher> m(pattern->matcher(u, status));
        if (U_SUCCESS(status))
            m->setTimeLimit(kBaseTicks + u.length() / kUnitsPerTick, status);
        if (U_SUCCESS(status))
            m->setStackLimit(kStackBytes, status);
        if (U_FAILURE(status))
            throw Error(std::string("ICU could not match: ") + u_errorName(status));
        return m;
    }

    // Throws for a failed match: a pattern past its bound is the file's fault, and says so.
    void check(UErrorCode status, const std::string& text) const {
        if (U_SUCCESS(status))
            return;
        const auto sample = text.size() > 48 ? text.substr(0, 44) + "…" : text;
        if (status == U_REGEX_TIME_OUT || status == U_REGEX_STACK_OVERFLOW)
            throw FormatError(source + ": the pattern " + shown + " takes the regular-expression engine " +
                              (status == U_REGEX_TIME_OUT ? "past its time bound" : "past its stack bound") +
                              " on the text \"" + sample +
                              "\" (repetitions nested in repetitions backtrack exponentially); attnscope "
                              "reads no file with such a pattern");
        throw Error(std::string("ICU could not match: ") + u_errorName(status));
    }
};

TextRegex::TextRegex(const std::string& pattern, const std::string& source, const std::string& shown)
    : impl_(std::make_unique<Impl>()) {
    impl_->source = source;
    impl_->shown = shown.empty() ? pattern : shown;
    UErrorCode status = U_ZERO_ERROR;
    UParseError where{};
    impl_->pattern.reset(icu::RegexPattern::compile(toUnicode(pattern), where, status));
    if (U_FAILURE(status))
        throw FormatError(source + ": the pattern " + impl_->shown + " does not compile (" +
                          u_errorName(status) + " at offset " + std::to_string(where.offset) + ")");
    for (const char* probe : kProbes)
        matches(probe);
}

TextRegex::~TextRegex() = default;

std::vector<std::pair<std::size_t, std::size_t>> TextRegex::matches(const std::string& text) const {
    std::vector<std::pair<std::size_t, std::size_t>> out;
    const auto u = toUnicode(text);
    const auto m = impl_->matcher(u);
    // UTF-16 offsets to UTF-8 ones, counted as the scan goes.
    int32_t u16 = 0;
    std::size_t u8 = 0;
    auto toByte = [&](int32_t target) {
        while (u16 < target) {
            const UChar32 c = u.char32At(u16);
            u16 += U16_LENGTH(c);
            u8 += static_cast<std::size_t>(U8_LENGTH(c));
        }
        return u8;
    };
    UErrorCode status = U_ZERO_ERROR;
    int32_t previousEnd = -1;
    while (m->find(status) && U_SUCCESS(status)) {
        const int32_t b = m->start(status), e = m->end(status);
        // ICU reports an empty match where the match before it ended; Oniguruma's iterator steps over it.
        if (e == b && b == previousEnd)
            continue;
        previousEnd = e;
        const auto begin = toByte(b);
        out.emplace_back(begin, toByte(e));
    }
    impl_->check(status, text);
    return out;
}

std::string TextRegex::replaceAll(const std::string& text, const std::string& replacement) const {
    const auto u = toUnicode(text);
    const auto m = impl_->matcher(u);
    // The replacement is literal text: $ and \ in it are escaped.
    icu::UnicodeString literal = toUnicode(replacement);
    literal.findAndReplace(u"\\", u"\\\\");
    literal.findAndReplace(u"$", u"\\$");
    UErrorCode status = U_ZERO_ERROR;
    const auto out = m->replaceAll(literal, status);
    impl_->check(status, text);
    return toUtf8(out);
}

} // namespace core
