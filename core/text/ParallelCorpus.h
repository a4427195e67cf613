#pragma once
// Sentence pairs for training and evaluating translation: the TSV files of data/en-es (english TAB spanish
// TAB source tag, no header).

#include <string>
#include <vector>

namespace core {

struct SentencePair {
    std::string source; ///< the sentence to translate
    std::string target; ///< its reference translation
    std::string tag; ///< where the sentence came from (wordnet, fortunes, …); empty when the file has none
};

/// Reads a TSV of two or three columns. Throws IoError when it can't be read (naming the .xz to unpack when
/// only that exists) and FormatError naming the file and line of a malformed row.
std::vector<SentencePair> readSentencePairs(const std::string& path);

} // namespace core
