#pragma once
// Shapes: B batch, T target length (new tokens), S source length, C channels.

#include "core/model/nn/FeedForward.h"
#include "core/model/nn/MultiHeadAttention.h"
#include "core/model/nn/Sublayer.h"

namespace core::nn {

/// Masked self_attn, then src_attn over the encoder memory (encoder–decoder only), then feed_forward;
/// each in a pre-norm residual. A decoder-only model is this block without src_attn; with d_ff 0 there is
/// no feed_forward (an attention-only layer).
class DecoderLayerImpl : public torch::nn::Module {
public:
    DecoderLayerImpl(const ModelConfig& c, bool withCross);
    /// selfCache/crossCache may be null (full recompute). pos0 is the position of x's first token.
    /// lastOnly: return only the last position (B, 1, C); the probabilities still cover every position.
    /// selfOff, crossOff: [H] flags of heads whose output is zeroed (see MultiHeadAttention), or null.
    /// stream, when given, gets the residual after each sublayer, (B, T, C) each; with lastOnly, a sublayer
    /// that computed only the last row leaves (B, 1, C): its last row is every point's last row.
    torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& memory, const torch::Tensor& srcMask,
                          const torch::Tensor& tgtMask, int64_t pos0, KvCache* selfCache, KvCache* crossCache,
                          torch::Tensor* selfProbs, torch::Tensor* crossProbs, bool lastOnly = false,
                          const std::uint8_t* selfOff = nullptr, const std::uint8_t* crossOff = nullptr,
                          std::vector<torch::Tensor>* stream = nullptr);

    MultiHeadAttention self_attn{nullptr};
    MultiHeadAttention src_attn{nullptr};
    FeedForward feed_forward{nullptr};
    torch::nn::ModuleList sublayer{nullptr};
};
TORCH_MODULE(DecoderLayer);

} // namespace core::nn
