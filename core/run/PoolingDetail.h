#pragma once
// What an attention-pooling classifier's answer is made of, token by token, beside its weights: the scores
// before softmax, the BiLSTM's outputs they were computed from, and each token's share of each class's
// logit. Because the classifier's last layer is linear in the pooled context, logit_k = b_k + Σ_j α_j ·
// (W_k · h_j): the sum splits exactly into one term per token, so "which tokens carry the decision" is read
// off, not estimated.

#include "core/base/Matrix.h"

#include <string>
#include <vector>

namespace core {

struct PoolingDetail {
    std::vector<std::string> classes; ///< K class names, in the order of the logits
    std::vector<float> probabilities; ///< [K] softmax of the logits
    std::vector<float> logits;        ///< [K]
    std::vector<float> bias;          ///< [K] the output layer's bias: logit_k − Σ_j contributions(k, j)
    std::vector<float> scores;        ///< [S] w · h_j + b, before softmax
    std::vector<float> weights;       ///< [S] the attention weights α_j (the pooling row)
    float padScore = 0.0f;            ///< a padded position's score: its LSTM output is 0, so just b
    Matrix states;                    ///< S × 2H: the BiLSTM's outputs, the forward half first
    Matrix contributions;             ///< K × S: α_j · (W_k · h_j)

    bool empty() const { return classes.empty(); }
    /// The class with the largest logit.
    int predicted() const;
    /// Each token's push toward the predicted class against the strongest other one (for two classes, the
    /// whole decision): contributions(pred, j) − contributions(other, j). [S]
    std::vector<float> decisiveness() const;

    /// The text as one row of a batch padded to `width` ≥ S tokens, as the seed's forward computes it:
    /// softmax over all `width` positions with the padding scoring padScore, then the padding masked out
    /// and the rest renormalised (which gives back `weights`).
    struct Padded {
        std::vector<float> beforeMask; ///< [width]
        std::vector<float> afterMask;  ///< [width], 0 on the padding
    };
    Padded padded(int width) const;

    std::size_t bytes() const;
};

} // namespace core
