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

/// Reads a TSV of two or three columns, from path or, when only that exists, path.xz (readCorpusFile).
/// Throws IoError when neither can be read and FormatError naming the file and line of a malformed row.
std::vector<SentencePair> readSentencePairs(const std::string& path);

} // namespace core
