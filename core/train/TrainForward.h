#pragma once
// The training forward pass of each model family, from a batch of ids to what its loss is taken over. Only
// the Trainer includes this (it carries torch types).
//
// Shapes: B batch, S source length, T target length, V target vocabulary, K classes.

#include "core/model/ModelParts.h"

#include <torch/types.h>

namespace core {

struct TrainBatch {
    torch::Tensor src;     ///< (B, S) <bos> source <eos>, padded; undefined for decoder-only models
    torch::Tensor lengths; ///< (B) each source's length without padding (the recurrent families pack)
    torch::Tensor input;   ///< (B, T) decoder input; undefined for a classifier
    torch::Tensor labels;  ///< (B, T) next tokens, <pad> where no loss is taken; a classifier's (B) classes
    int64_t tokens = 0;    ///< labels that count (a classifier's: the tokens it read, for the rate)
};

/// The logits of the batch: (B, T, V) for the Transformer, the GRU translator's log-probabilities (B, T, V)
/// (teacher-forced a step at a time, its attention kept off the padding), a classifier's (B, K). The
/// parts' network is in training mode; pad is the target side's padding id.
torch::Tensor trainingLogits(ModelParts& parts, const TrainBatch& batch, int64_t pad);

} // namespace core
