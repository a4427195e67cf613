#include "core/model/nn/AttentionClassifier.h"

#include <torch/torch.h>

namespace core::nn {

AttentionClassifierImpl::AttentionClassifierImpl(int64_t vocab, int64_t embed, int64_t hidden,
                                                 int64_t classes)
    : embedding(register_module("embedding", torch::nn::Embedding(vocab, embed))),
      lstm(register_module(
          "lstm",
          torch::nn::LSTM(torch::nn::LSTMOptions(embed, hidden).bidirectional(true).batch_first(true)))),
      attention(register_module("attention", torch::nn::Linear(2 * hidden, 1))),
      fc(register_module("fc", torch::nn::Linear(2 * hidden, classes))),
      dropout(register_module("dropout", torch::nn::Dropout(0.5))) {}

AttentionClassifierImpl::Output AttentionClassifierImpl::forward(const torch::Tensor& tokens,
                                                                 const torch::Tensor& lengths) {
    namespace rnn = torch::nn::utils::rnn;
    const auto embedded = dropout(embedding(tokens)); // (B, T, E); dropout is the identity in eval mode
    const auto cpuLengths = lengths.to(torch::kCPU, torch::kInt64);
    // Packed, as the seed does, so the backward direction starts at each row's last real token.
    const auto packed = rnn::pack_padded_sequence(embedded, cpuLengths, /*batch_first=*/true,
                                                  /*enforce_sorted=*/false);
    const auto packedOut = std::get<0>(lstm->forward_with_packed_input(packed));
    // Padded back to T (the seed pads to the longest length, which is T when a row fills it).
    auto states = std::get<0>(rnn::pad_packed_sequence(packedOut, /*batch_first=*/true, /*padding_value=*/0.0,
                                                       tokens.size(1))); // (B, T, 2H)
    const auto scores = attention(states).squeeze(2);                    // (B, T)
    auto weights = torch::softmax(scores, 1);                            // (B, T)
    const auto mask =
        torch::arange(states.size(1), torch::TensorOptions(torch::kInt64).device(tokens.device()))
            .unsqueeze(0) < lengths.to(tokens.device(), torch::kInt64).unsqueeze(1); // (B, T)
    weights = weights * mask.to(weights.dtype());
    weights = weights / (weights.sum(1, /*keepdim=*/true) + 1e-9);            // (B, T)
    const auto context = torch::bmm(weights.unsqueeze(1), states).squeeze(1); // (B, 2H)
    return {fc(dropout(context)), weights, scores, states};
}

} // namespace core::nn
