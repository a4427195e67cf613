#pragma once
// analysis/ — measurements over what a model computes: statistics of attention matrices (this file), their
// max pooling for pictures smaller than they are (MaxPool), the head analysis (induction, previous-token, …),
// positional-encoding analysis, perplexity, and translation metrics (BLEU, chrF, with sacreBLEU's 13a
// tokenizer). Plain loops where it can; it runs models through run/ and includes base/, text/, model/ and
// run/, never train/.
//
// Summary numbers of attention matrices for tooltips and exports: plain loops over an AttentionBlock, no
// torch and no Qt, so any view (or a test) can use them on a snapshot.

#include "core/run/AttentionSnapshot.h"

#include <utility>
#include <vector>

namespace core {

/// Statistics of one [query][key] matrix of attention weights (each row a probability distribution).
struct HeadStats {
    /// Mean over query rows of the row's Shannon entropy −Σ_k w·log2(w), in bits: 0 for a row that puts all
    /// its weight on one key, log2(keys) for a uniform row.
    double meanEntropyBits = 0.0;
    /// Mean over query rows of the row's largest weight: how sharply a typical query focuses.
    double meanRowMax = 0.0;
    float minWeight = 0.0f; ///< smallest weight of the matrix
    float maxWeight = 0.0f; ///< largest weight of the matrix
    /// Largest weight of query rows 1 and on (0 with one row): in causal attention row 0 sees only key 0, so
    /// its weight 1 would make every head's maximum 1.
    float maxWeightPastFirstRow = 0.0f;
    /// Mean over query rows of Σ_k w·|q − k|, in token positions: how far a typical query looks. For
    /// cross-attention q and k index different sequences, so it measures distance from the diagonal.
    double meanDistance = 0.0;
    /// Mean over query rows 1 and on of the weight on key 0 (<bos>): where heads with nothing to do rest.
    double firstTokenWeight = 0.0;
    /// Mean over query rows 1 and on of the weight on key q − 1: a previous-token head scores near 1.
    /// Meaningful for self-attention, where queries and keys are the same positions.
    double previousTokenScore = 0.0;
    std::vector<int> argmaxKey; ///< per query row, the key with the largest weight (the first on ties)
};

/// Statistics of a row-major queries × keys matrix; all zero (and no argmax) when either side is empty.
HeadStats headStats(const float* weights, int queries, int keys);

/// Statistics of one head of one layer; head may be kMeanHead for the mean over the layer's heads.
HeadStats headStats(const AttentionBlock& block, int layer, int head);

/// The range a per-head colour scale should stretch over: the smallest and largest weight a query could
/// give. In causal attention the masked cells (always 0) are left out, and so is every row that sees a
/// single key (the first query can only attend to itself, with weight 1): either would pin the range and
/// hide what the head does. Falls back to the plain min and max when nothing else is left.
std::pair<float, float> informativeRange(const float* weights, int queries, int keys, bool causal);

} // namespace core
