#pragma once
// What each decoder self-attention head does, in five numbers: how spread its rows are, how far it looks,
// how much it rests on the first token, and how much it behaves as a previous-token or an induction head.
// Measured on random token sequences each given twice (<bos> R R), where an induction head stands out: in
// the second copy it attends to the token that followed the current token's earlier occurrence.

#include "core/model/AttentionBlock.h"

#include <cstdint>
#include <vector>

namespace core {

class Model;

/// One head's scores; each is the mean over the analysed sequences.
struct HeadScores {
    int layer = 0;
    int head = 0;
    double entropyBits = 0.0;        ///< mean row entropy −Σ w·log2 w over every query row
    double meanDistance = 0.0;       ///< mean over rows of Σ_k w·|q − k|, in positions
    double firstTokenWeight = 0.0;   ///< mean over rows q ≥ 1 of the weight on position 0
    double previousTokenScore = 0.0; ///< mean over rows q ≥ 1 of the weight on position q − 1
    double inductionScore = 0.0;     ///< mean over the second copy's rows of the weight on the induction key
};

struct HeadAnalysisSettings {
    int repeatLength = 32; ///< tokens in R; lowered to fit the model's max_len (1 + 2·R ≤ max_len)
    int sequences = 4;     ///< random sequences averaged over
    uint64_t seed = 0;
};

/// The R analyzeHeads uses: settings.repeatLength, lowered so that 1 + 2·R fits the model's max_len.
int fittedRepeatLength(const Model& model, const HeadAnalysisSettings& settings);

/// One of the sequences the scores are measured on: <bos> R R as the decoder's input, and for an
/// encoder–decoder R as its source (<bos> R <eos>, in the source vocabulary's own ids).
struct HeadProbe {
    std::vector<int64_t> src; ///< empty for decoder-only models
    std::vector<int64_t> tgt; ///< <bos> R R
    int repeatLength = 0;     ///< |R|
};

/// The settings.sequences probes analyzeHeads reads, in its order (the same seed gives the same ones).
/// Throws InputError as analyzeHeads does.
std::vector<HeadProbe> headProbes(const Model& model, const HeadAnalysisSettings& settings);

/// The scores of one head of a decoder self-attention block computed on <bos> R R with |R| = repeatLength:
/// queries and keys 0 … 2·repeatLength. Row 1 + R + j (the second copy's j-th token) has its induction key
/// at 2 + j, the position after the first copy's j-th token.
HeadScores scoreHead(const AttentionBlock& block, int layer, int head, int repeatLength);

/// The induction score of a head that spreads each row evenly over the keys it sees (row 1 + R + j over
/// 2 + R + j keys): what a random head scores, against which an induction head stands out.
double inductionChance(int repeatLength);
/// Whether an induction score stands out: at least 0.3 of a row's weight on the induction key, and at least
/// five times chance.
bool inductionStandsOut(double score, int repeatLength);

/// Runs the model on settings.sequences random sequences (tokens drawn uniformly from the target vocabulary
/// without its special tokens) and scores every decoder self-attention head, layer-major. An
/// encoder–decoder model reads R as its source. Throws InputError when max_len leaves no room for R ≥ 2.
std::vector<HeadScores> analyzeHeads(const Model& model, const HeadAnalysisSettings& settings);

} // namespace core
