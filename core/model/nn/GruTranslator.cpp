#include "core/model/nn/GruTranslator.h"

#include <torch/torch.h>

namespace core::nn {

EncoderRnnImpl::EncoderRnnImpl(int64_t vocab, int64_t hidden)
    : embedding(register_module("embedding", torch::nn::Embedding(vocab, hidden))),
      gru(register_module("gru", torch::nn::GRU(torch::nn::GRUOptions(hidden, hidden).batch_first(true)))) {}

std::tuple<torch::Tensor, torch::Tensor> EncoderRnnImpl::forward(const torch::Tensor& src) {
    return gru(embedding(src)); // (B, S, H), (1, B, H)
}

AttentionDecoderRnnImpl::AttentionDecoderRnnImpl(int64_t hidden, int64_t vocab)
    : embedding(register_module("embedding", torch::nn::Embedding(vocab, hidden))),
      attention(register_module("attention", torch::nn::Linear(2 * hidden, 1))),
      gru(register_module("gru",
                          torch::nn::GRU(torch::nn::GRUOptions(2 * hidden, hidden).batch_first(true)))),
      out(register_module("out", torch::nn::Linear(hidden, vocab))) {}

AttentionDecoderRnnImpl::Step AttentionDecoderRnnImpl::forward(const torch::Tensor& input,
                                                               const torch::Tensor& hidden,
                                                               const torch::Tensor& encoderOutputs) {
    const auto embedded = embedding(input);                                                // (B, 1, H)
    const auto expanded = hidden.transpose(0, 1).expand({-1, encoderOutputs.size(1), -1}); // (B, S, H)
    // The seed's order: encoder output first, then the hidden state.
    const auto scores = attention(torch::cat({encoderOutputs, expanded}, 2)).squeeze(-1); // (B, S)
    const auto weights = torch::softmax(scores, 1);                                       // (B, S)
    const auto context = torch::bmm(weights.unsqueeze(1), encoderOutputs);                // (B, 1, H)
    auto [output, next] = gru(torch::cat({embedded, context}, 2), hidden); // (B, 1, H), (1, B, H)
    const auto logProbs = torch::log_softmax(out(output.squeeze(1)), 1);   // (B, V)
    return {logProbs, next, weights, scores};
}

GruTranslatorImpl::GruTranslatorImpl(int64_t srcVocab, int64_t tgtVocab, int64_t hidden)
    : encoder(register_module("encoder", EncoderRnn(srcVocab, hidden))),
      decoder(register_module("decoder", AttentionDecoderRnn(hidden, tgtVocab))) {}

} // namespace core::nn
