#pragma once
// Shapes: B batch, T time (tokens, padded to the longest), E embedding, H hidden per direction, K classes.

#include <torch/nn/module.h>
#include <torch/nn/modules/dropout.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/rnn.h>
#include <torch/nn/pimpl.h>

namespace core::nn {

/// The seed's AttentionTextClassifier: embedding, a bidirectional LSTM over the packed tokens, one score
/// per position (Linear(2H, 1)), softmax over all T positions, the padding masked out and the rest
/// renormalised, the weighted sum of the LSTM's outputs, and a linear layer to class logits. In training
/// mode, dropout (the seed's 0.5) on the embeddings and on the context, as the seed applies it; it has no
/// parameters. Submodules carry the seed's names: embedding, lstm, attention, fc (and dropout).
class AttentionClassifierImpl : public torch::nn::Module {
public:
    AttentionClassifierImpl(int64_t vocab, int64_t embed, int64_t hidden, int64_t classes);

    struct Output {
        torch::Tensor logits;  // (B, K)
        torch::Tensor weights; // (B, T) after the mask and renormalisation; 0 on padding
        torch::Tensor scores;  // (B, T) Linear(2H, 1) before softmax
        torch::Tensor states;  // (B, T, 2H) the BiLSTM's outputs (0 on padding)
    };
    /// tokens (B, T) ids; lengths (B) int64, each ≥ 1 and ≤ T.
    Output forward(const torch::Tensor& tokens, const torch::Tensor& lengths);

    torch::nn::Embedding embedding{nullptr};
    torch::nn::LSTM lstm{nullptr};
    torch::nn::Linear attention{nullptr}, fc{nullptr};
    torch::nn::Dropout dropout{nullptr};
};
TORCH_MODULE(AttentionClassifier);

} // namespace core::nn
