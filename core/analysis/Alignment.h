#pragma once
// A translation model's alignment of one sentence, as a learner compares two models on it: the model's
// greedy translation, and for each token it produced, the attention over the source it produced it with.
// For the GRU translator that is its one map; for a Transformer, the cross-attention of one layer and one
// head, or the mean over heads and/or layers (the seed's models and ours read alike: a row per output).

#include "core/base/Matrix.h"
#include "core/model/Model.h"
#include "core/text/Token.h"

#include <memory>
#include <string>
#include <vector>

namespace core {

struct Alignment {
    std::string model;          ///< the model's name
    std::string shape;          ///< its architecture in a line (ModelConfig::shape)
    std::string translation;    ///< the greedy output as text
    std::vector<Token> source;  ///< columns: the source as read (<bos> … <eos>)
    std::vector<Token> outputs; ///< rows: each token produced, <eos> last when it was reached
    Matrix weights;             ///< outputs × source: the attention each output was produced with
    int layers = 0;             ///< the model's cross-attention layers and heads (1 and 1 for a GRU)
    int heads = 0;
    int layer = -1; ///< the layer shown, −1 for the mean over layers
    int head = -1;  ///< the head shown, −1 for the mean over heads
};

/// Decodes text greedily (at most maxTokens outputs; 0: up to max_len) and reads the attention each output
/// was produced with, from layer/head (−1: the mean). Throws InputError for a model without attention over
/// a source (decoder-only, a classifier), for an empty text, or for a layer or head it does not have.
Alignment alignmentOf(std::shared_ptr<const Model> model, const std::string& text, int layer = -1,
                      int head = -1, int maxTokens = 0);

/// How alike two alignments of the same source are, whatever each produced: of the outputs both produced
/// (matched by text, in order), the share that attend most to the same source position. −1 when they share
/// no output or read the source as different tokens.
double argmaxAgreement(const Alignment& a, const Alignment& b);

} // namespace core
