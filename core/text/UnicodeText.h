#pragma once
// Unicode operations on UTF-8 text for the tokenizers that need more than bytes: normal forms, case,
// accents, code points, and the spelling of tokenizer.json's patterns for ICU (TextRegex compiles them).
// Backed by ICU; invalid UTF-8 is read as U+FFFD.

#include <cstddef>
#include <string>
#include <vector>

namespace core {

enum class NormalForm { NFC, NFD, NFKC, NFKD };

std::string normalizeText(const std::string& text, NormalForm form);
/// Unicode lowercasing code point by code point (full mappings, no context), as the tokenizers library does.
std::string lowercaseText(const std::string& text);
/// NFD with the combining marks (category Mn) removed.
std::string stripAccents(const std::string& text);
/// The text's code points, each as its UTF-8 bytes.
std::vector<std::string> codePoints(const std::string& text);
/// The text with every invalid UTF-8 sequence replaced by U+FFFD, as text in other programs always is.
std::string validUtf8(const std::string& text);
/// BERT's clean-up: NUL, U+FFFD and control characters (but tab, newline, carriage return) removed, every
/// whitespace character made a space.
std::string bertCleanText(const std::string& text);
/// BERT's handling of CJK ideographs: each surrounded by spaces, so it is a word of its own.
std::string spaceOutCjk(const std::string& text);
/// Every occurrence of `from` (not empty) replaced by `to`, left to right.
std::string replaceText(const std::string& text, const std::string& from, const std::string& to);
/// The text without the White_Space at its start (left) and end (right).
std::string stripWhitespace(const std::string& text, bool left, bool right);
/// The first code point of UTF-8 text (U+FFFD for an invalid sequence, 0 for empty text).
char32_t firstCodePoint(const std::string& text);
/// Where the White_Space before byte offset `at` (not before `floor`) starts, a code point at a time.
std::size_t skipSpaceBackward(const std::string& text, std::size_t floor, std::size_t at);
/// Where the White_Space from byte offset `at` ends.
std::size_t skipSpaceForward(const std::string& text, std::size_t at);
/// Whether c is White_Space.
bool isUnicodeSpace(char32_t c);
/// Whether c is a word character as the tokenizers library's \w counts them (Rust's regex: Alphabetic, marks,
/// decimal digits, connector punctuation, Join_Control), which decides an added token's single_word.
bool isWordChar(char32_t c);
/// The code point that ends at byte offset `at` (U+FFFD for an invalid sequence, 0 when `at` is 0).
char32_t codePointBefore(const std::string& text, std::size_t at);

/// A tokenizer.json pattern (the library compiles it with Oniguruma) spelled for ICU with the same meaning:
/// Oniguruma's \s is White_Space and its \w is letters, marks, numbers and connectors, where ICU's differ.
std::string libraryRegex(const std::string& pattern);
/// Every combining mark (categories Mn, Mc, Me) removed.
std::string removeMarks(const std::string& text);

} // namespace core
