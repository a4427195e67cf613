#pragma once
// The batches of a run, each a function of the recipe's seed and the step alone, so a resumed run sees
// exactly the data the uninterrupted run would have seen. Generated examples, translation pairs and labelled
// texts are drawn into pools of length_buckets batches, sorted by length (little padding) and shuffled; a
// language model's windows all have one length. Only the Trainer includes this (it carries torch types).

#include "core/train/TrainForward.h"
#include "core/train/TrainRecipe.h"
#include "core/train/TranslationData.h"

#include <cstdint>
#include <string>
#include <vector>

namespace core {

class LanguageModelData;

class TrainBatches {
public:
    /// corpus: the encoded pairs of a translation or classification run (a classifier's target is its
    /// class index), null otherwise; language: a language model's data, null otherwise. Both must outlive
    /// this.
    TrainBatches(const TrainRecipe& recipe, const ModelConfig& config, const Vocabulary& vocab,
                 const std::vector<EncodedPair>* corpus, const LanguageModelData* language);

    /// The batch of step `step` (0-based); valid until the next call.
    const TrainBatch& at(int64_t step);

private:
    std::vector<int64_t> ids(const std::string& text) const; // a generated example's characters
    TrainBatch makeBatch(const std::vector<EncodedPair>& examples) const;
    // Texts as the window reads them: <bos> text <eos>, cut at max_len; one label (a class index) a row.
    TrainBatch classBatch(const std::vector<EncodedPair>& examples) const;
    static torch::Tensor lengthsOf(const std::vector<std::vector<int64_t>>& rows); // (B)

    TrainRecipe recipe_;
    ModelConfig config_;
    Vocabulary vocab_;
    Task task_;
    const std::vector<EncodedPair>* corpus_;
    const LanguageModelData* language_;
    int64_t poolIndex_ = -1;
    std::vector<TrainBatch> pool_; // the batches of the current pool, in training order
};

} // namespace core
