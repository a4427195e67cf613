#pragma once
// How well a language model predicts held-out text: the mean negative log-likelihood of every token of a
// TextCorpus, read in windows of the model's max_len, each starting at a document behind <bos>.

#include "core/model/Model.h"
#include "core/text/TextCorpus.h"

#include <cstddef>
#include <cstdint>
#include <functional>

namespace core {

struct PerplexityResult {
    double nllPerToken = 0.0; ///< nats
    double perplexity = 0.0;  ///< exp(nllPerToken)
    double bitsPerByte = 0.0; ///< the same loss per byte of text, comparable across tokenizers
    int64_t tokens = 0;       ///< tokens predicted (each exactly once)
    int64_t bytes = 0;        ///< their bytes (an <eos> counts as the newline it stands for)
};

/// Windows of max_len tokens start at documents and overlap where a window ends inside a document, so every
/// token is predicted once, with at least the context of its own document before it. maxWindows > 0 reads
/// that many windows spread evenly over the text (a quick check while training). Throws InputError for an
/// encoder–decoder model. `progress`, when given, hears the windows read so far and their number.
PerplexityResult perplexity(const Model& model, const TextCorpus& corpus, int64_t maxWindows = 0,
                            const std::function<void(std::size_t done, std::size_t total)>& progress = {});

} // namespace core
