#pragma once
// A classification run's data: texts with their labels (TSV: label, text), encoded once with a word
// vocabulary of the training texts' most frequent words (learned once, then kept in the run directory so a
// resumed run reads exactly as before), and the held-out texts the accuracy checks classify.

#include "core/text/ParallelCorpus.h"
#include "core/text/Tokenizer.h"
#include "core/train/TranslationData.h"

#include <memory>
#include <string>
#include <vector>

namespace core {

struct TrainRecipe;

/// Reads a TSV of label, text per line as (text, label) pairs (`source` the text, `target` the label).
/// Throws IoError/FormatError naming the file, and the line of a label that is not one of classes.
std::vector<SentencePair> readLabelledTexts(const std::string& path, const std::vector<std::string>& classes);

class ClassificationData {
public:
    /// Reads the recipe's corpus and valid files; writes runDir/vocab.json unless it is there. Throws
    /// IoError/FormatError naming a file (and the line of a label the model's classes lack), InputError when
    /// the texts hold fewer distinct words than word_vocab_size asks for, ModelError when a stored
    /// vocabulary's size disagrees with the recipe.
    ClassificationData(const TrainRecipe& recipe, const std::string& runDir);
    ~ClassificationData();

    const Tokenizer& tokenizer() const { return *tokenizer_; }
    /// Every training text as ids (its first max_tokens + 1 words, without <bos>/<eos>), its class index as
    /// the one target id.
    const std::vector<EncodedPair>& examples() const { return examples_; }
    /// The held-out texts (`source`) and their labels (`target`).
    const std::vector<SentencePair>& valid() const { return valid_; }

private:
    std::unique_ptr<Tokenizer> tokenizer_;
    std::vector<EncodedPair> examples_;
    std::vector<SentencePair> valid_;
};

} // namespace core
