#include "core/model/nn/GruTranslator.h"

#include <torch/torch.h>

#include <limits>

namespace core::nn {

EncoderRnnImpl::EncoderRnnImpl(int64_t vocab, int64_t hidden)
    : embedding(register_module("embedding", torch::nn::Embedding(vocab, hidden))),
      gru(register_module("gru", torch::nn::GRU(torch::nn::GRUOptions(hidden, hidden).batch_first(true)))) {}

std::tuple<torch::Tensor, torch::Tensor> EncoderRnnImpl::forward(const torch::Tensor& src,
                                                                 const torch::Tensor& lengths) {
    if (!lengths.defined())
        return gru(embedding(src)); // (B, S, H), (1, B, H)
    namespace rnn = torch::nn::utils::rnn;
    const auto packed = rnn::pack_padded_sequence(embedding(src), lengths.to(torch::kCPU, torch::kInt64),
                                                  /*batch_first=*/true, /*enforce_sorted=*/false);
    auto [out, hidden] = gru->forward_with_packed_input(packed);
    auto states = std::get<0>(rnn::pad_packed_sequence(out, /*batch_first=*/true, /*padding_value=*/0.0,
                                                       src.size(1))); // (B, S, H)
    return {states, hidden};                                          // hidden (1, B, H)
}

AttentionDecoderRnnImpl::AttentionDecoderRnnImpl(int64_t hidden, int64_t vocab, bool additive)
    : embedding(register_module("embedding", torch::nn::Embedding(vocab, hidden))),
      attention(register_module("attention", torch::nn::Linear(2 * hidden, additive ? hidden : 1))),
      gru(register_module("gru",
                          torch::nn::GRU(torch::nn::GRUOptions(2 * hidden, hidden).batch_first(true)))),
      out(register_module("out", torch::nn::Linear(hidden, vocab))) {
    if (additive)
        v = register_module("v", torch::nn::Linear(torch::nn::LinearOptions(hidden, 1).bias(false)));
}

AttentionDecoderRnnImpl::Step AttentionDecoderRnnImpl::forward(const torch::Tensor& input,
                                                               const torch::Tensor& hidden,
                                                               const torch::Tensor& encoderOutputs,
                                                               const torch::Tensor& srcMask) {
    const auto embedded = embedding(input);                                                // (B, 1, H)
    const auto expanded = hidden.transpose(0, 1).expand({-1, encoderOutputs.size(1), -1}); // (B, S, H)
    // The seed's order: encoder output first, then the hidden state.
    auto scores = attention(torch::cat({encoderOutputs, expanded}, 2)); // (B, S, 1) or (B, S, H)
    if (v)
        scores = v(torch::tanh(scores)); // (B, S, 1)
    scores = scores.squeeze(-1);         // (B, S)
    if (srcMask.defined())
        scores = scores.masked_fill(srcMask.logical_not(), -std::numeric_limits<float>::infinity());
    const auto weights = torch::softmax(scores, 1);                        // (B, S)
    const auto context = torch::bmm(weights.unsqueeze(1), encoderOutputs); // (B, 1, H)
    auto [output, next] = gru(torch::cat({embedded, context}, 2), hidden); // (B, 1, H), (1, B, H)
    const auto logProbs = torch::log_softmax(out(output.squeeze(1)), 1);   // (B, V)
    return {logProbs, next, weights, scores};
}

GruTranslatorImpl::GruTranslatorImpl(int64_t srcVocab, int64_t tgtVocab, int64_t hidden, bool additive)
    : encoder(register_module("encoder", EncoderRnn(srcVocab, hidden))),
      decoder(register_module("decoder", AttentionDecoderRnn(hidden, tgtVocab, additive))) {}

} // namespace core::nn
