#pragma once
// A language-model run's data: the byte-level BPE vocabulary learned from the training text (once, then
// kept in the run directory so a resumed run tokenizes exactly as before), and the training and held-out
// text as token streams.

#include "core/text/BpeTokenizer.h"
#include "core/text/TextCorpus.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace core {

struct TrainRecipe;

class LanguageModelData {
public:
    /// Reads the recipe's corpus and valid files; learns the vocabulary into runDir/bpe/ unless it is there.
    /// Throws IoError/FormatError naming a file, ModelError when a stored vocabulary's size disagrees.
    LanguageModelData(const TrainRecipe& recipe, const std::string& runDir);

    /// The rows of training step `step`: `rows` windows of <bos> + `length` tokens, each starting at a
    /// document drawn from (seed, step) alone, so a resumed run reads what the uninterrupted one would.
    std::vector<std::vector<int64_t>> batch(uint64_t seed, int64_t step, int64_t rows, int64_t length) const;

    const BpeTokenizer& tokenizer() const { return *tokenizer_; }
    const TextCorpus& train() const { return *train_; }
    const TextCorpus& valid() const { return *valid_; }

private:
    std::unique_ptr<BpeTokenizer> tokenizer_;
    std::unique_ptr<TextCorpus> train_, valid_;
};

} // namespace core
