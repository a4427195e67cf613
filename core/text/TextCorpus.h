#pragma once
// A language model's text: documents (one a line in the corpus file) tokenized once into one stream,
//   doc₁ <eos> doc₂ <eos> doc₃ <eos> …
// Training and evaluation read windows of it that start at a document, behind a single <bos>, which is how a
// prompt reaches the model in the window ("<bos> prompt"). A window runs on over the next documents, so the
// model learns to use context that is already in view (the repeats induction heads feed on).

#include "core/text/Tokenizer.h"

#include <cstdint>
#include <string>
#include <vector>

namespace core {

class TextCorpus {
public:
    /// The non-empty lines of a UTF-8 file, or of its .xz when only that exists (readCorpusFile). IoError
    /// when neither can be read; FormatError when it holds no text.
    static std::vector<std::string> readDocuments(const std::string& path);

    /// Tokenizes every document (each distinct GPT-2 piece once, so a few MB take seconds).
    TextCorpus(const std::vector<std::string>& documents, const Tokenizer& tokenizer);

    /// <bos> then `length` ids of the stream from document `doc` on: length + 1 ids, <pad> past the end.
    std::vector<int64_t> window(std::size_t doc, int64_t length) const;
    /// The same from any stream position (a document longer than a window is read on from its middle).
    std::vector<int64_t> windowAt(int64_t position, int64_t length) const;

    const std::vector<int32_t>& stream() const { return stream_; }
    /// Stream position of each document's first token.
    const std::vector<int64_t>& starts() const { return starts_; }
    std::size_t documents() const { return starts_.size(); }
    /// UTF-8 bytes of the text, a newline counted for each <eos>: the denominator of bits per byte.
    int64_t bytes() const { return bytes_; }

private:
    std::vector<int32_t> stream_;
    std::vector<int64_t> starts_;
    int64_t bos_ = 0, pad_ = 0;
    int64_t bytes_ = 0;
};

} // namespace core
