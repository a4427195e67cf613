#pragma once
// Shapes: B batch, S source length, H hidden, V target vocabulary.

#include <torch/nn/module.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/rnn.h>
#include <torch/nn/pimpl.h>

namespace core::nn {

/// The seed's EncoderRNN: embedding and a one-layer GRU over the source (names embedding, gru).
class EncoderRnnImpl : public torch::nn::Module {
public:
    EncoderRnnImpl(int64_t vocab, int64_t hidden);
    /// src (B, S) → outputs (B, S, H) and the last hidden state (1, B, H). With lengths (B) (training on a
    /// padded batch) the rows are packed, so each hidden state is its row's last real one and the outputs
    /// past a row's end are 0; a row without padding computes what the seed's forward does.
    std::tuple<torch::Tensor, torch::Tensor> forward(const torch::Tensor& src,
                                                     const torch::Tensor& lengths = {});

    torch::nn::Embedding embedding{nullptr};
    torch::nn::GRU gru{nullptr};
};
TORCH_MODULE(EncoderRnn);

/// The seed's AttentionDecoderRNN: at each step the previous hidden state is set beside every encoder output,
/// scored by Linear(2H, 1), softmaxed over the source into the context (bmm), and a GRU reads [embedding;
/// context] to the next hidden state and log-probabilities (names embedding, attention, gru, out).
///
/// That score is a·enc_j + b·h + c: the hidden state adds the same to every position, softmax removes it,
/// and the seed's decoder attends the same way at every step. `additive` scores as Bahdanau et al. (2015)
/// do, v·tanh(W [enc_j; h] + b) (attention becomes Linear(2H, H), and v is Linear(H, 1) without bias), so
/// the weights follow the decoder's state; everything else stays the seed's.
class AttentionDecoderRnnImpl : public torch::nn::Module {
public:
    AttentionDecoderRnnImpl(int64_t hidden, int64_t vocab, bool additive = false);

    struct Step {
        torch::Tensor logProbs; // (B, V)
        torch::Tensor hidden;   // (1, B, H)
        torch::Tensor weights;  // (B, S) the attention over the source
        torch::Tensor scores;   // (B, S) before softmax
    };
    /// input (B, 1) ids; hidden (1, B, H); encoderOutputs (B, S, H). srcMask (B, S) bool, true where a
    /// source position is real, keeps a padded batch's padding out of the softmax (the seed has none: it
    /// decodes one sentence at a time).
    Step forward(const torch::Tensor& input, const torch::Tensor& hidden, const torch::Tensor& encoderOutputs,
                 const torch::Tensor& srcMask = {});

    torch::nn::Embedding embedding{nullptr};
    torch::nn::Linear attention{nullptr};
    torch::nn::GRU gru{nullptr};
    torch::nn::Linear out{nullptr};
    torch::nn::Linear v{nullptr}; // additive scoring only
};
TORCH_MODULE(AttentionDecoderRnn);

/// The two as one module, so a single file holds both under encoder.* and decoder.*.
class GruTranslatorImpl : public torch::nn::Module {
public:
    GruTranslatorImpl(int64_t srcVocab, int64_t tgtVocab, int64_t hidden, bool additive = false);
    EncoderRnn encoder{nullptr};
    AttentionDecoderRnn decoder{nullptr};
};
TORCH_MODULE(GruTranslator);

} // namespace core::nn
