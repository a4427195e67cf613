#pragma once
// A compiled regular expression in ICU's syntax, which reads the patterns of tokenizer.json (\p{L}, (?i:…),
// (?!…)); libraryRegex() (UnicodeText.h) first spells Oniguruma's \s and \w as ICU means them. Every match
// is bounded: ICU's engine, like the Oniguruma the tokenizers library uses, backtracks, and a pattern with
// nested repetitions ((\w+\s?)+$) takes exponential time on a sentence it fails to match at the end.

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace core {

class TextRegex {
public:
    /// Compiles the pattern and runs it on a few short texts that make nested repetitions backtrack without
    /// end (a run of letters before "!", the program's example sentence), so that such a pattern is refused
    /// when its file is read, not at the first sentence typed. Throws FormatError naming `source` and the
    /// pattern as `shown` (the file's spelling; empty: `pattern`) when it does not compile or runs past the
    /// bound on one of them.
    TextRegex(const std::string& pattern, const std::string& source, const std::string& shown = {});
    ~TextRegex();
    TextRegex(const TextRegex&) = delete;
    TextRegex& operator=(const TextRegex&) = delete;

    /// [begin, end) byte offsets of every non-overlapping match, left to right. Empty matches count, as
    /// Oniguruma reports them: all but one that starts where the match before it ended. Throws FormatError
    /// naming the source and the pattern when the text takes the engine past its bound (work proportional to
    /// the text's length, far above what any sound pattern needs).
    std::vector<std::pair<std::size_t, std::size_t>> matches(const std::string& text) const;
    /// Every match replaced by `replacement`, which is literal text; bounded as matches() is.
    std::string replaceAll(const std::string& text, const std::string& replacement) const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_; // immutable once made: each call makes its own matcher, so threads share it
};

} // namespace core
