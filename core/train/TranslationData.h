#pragma once
// A translation run's data: the sentence pairs, encoded once with the joint SentencePiece model learned from
// them (once, then kept in the run directory so a resumed run tokenizes exactly as before), and the
// held-out pairs the chrF checks translate.

#include "core/text/ParallelCorpus.h"
#include "core/text/Tokenizer.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace core {

struct TrainRecipe;

/// One example as ids, without <bos>/<eos>.
struct EncodedPair {
    std::vector<int64_t> src;
    std::vector<int64_t> tgt;
};

class TranslationData {
public:
    /// Reads the recipe's corpus and valid TSV files; trains runDir/spm.model unless it is there. Throws
    /// IoError/FormatError naming a file, ModelError when the stored model's size disagrees with the recipe,
    /// InputError when no pair fits max_tokens.
    TranslationData(const TrainRecipe& recipe, const std::string& runDir);
    ~TranslationData();

    const Tokenizer& tokenizer() const { return *tokenizer_; }
    /// The training pairs whose sides both fit max_tokens.
    const std::vector<EncodedPair>& pairs() const { return pairs_; }
    const std::vector<SentencePair>& valid() const { return valid_; }

private:
    std::unique_ptr<Tokenizer> tokenizer_;
    std::vector<EncodedPair> pairs_;
    std::vector<SentencePair> valid_;
};

} // namespace core
