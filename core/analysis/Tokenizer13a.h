#pragma once
// Text as sacreBLEU sees it: Unicode code points with Python's str semantics, and its default 13a
// tokenizer. Shared by the BLEU and chrF of TranslationMetrics.

#include <string>
#include <vector>

namespace core {

namespace text13a {

using Text = std::u32string; ///< code points, like Python's str

/// Strict UTF-8, like Python's decoder: overlong forms, surrogates and truncated sequences throw InputError
/// naming `what` and the byte offset.
Text decodeUtf8(const std::string& bytes, const std::string& what);
std::string encodeUtf8(const Text& text);
/// Python's str.isspace(): what str.split() splits on and str.rstrip() strips.
bool isPySpace(char32_t c);
/// Python's str.split() without arguments.
std::vector<Text> splitWords(const Text& text);
/// Python's str.rstrip() without arguments.
Text rstripped(Text text);
/// The 13a tokens of one line.
std::vector<Text> tokens13a(Text line);

} // namespace text13a

/// sacreBLEU's 13a tokenizer on one line: tokens joined by single spaces. (BLEU right-strips each segment
/// before tokenizing, as sacreBLEU does.) Throws InputError when line is not valid UTF-8.
std::string tokenize13a(const std::string& line);

} // namespace core
