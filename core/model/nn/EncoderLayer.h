#pragma once
// Shapes: B batch, S source length, C channels.

#include "core/model/nn/FeedForward.h"
#include "core/model/nn/MultiHeadAttention.h"
#include "core/model/nn/Sublayer.h"

namespace core::nn {

/// self_attn then feed_forward, each in a pre-norm residual (sublayer.0, sublayer.1). With d_ff 0 the layer
/// is attention-only: no feed_forward and no sublayer.1.
class EncoderLayerImpl : public torch::nn::Module {
public:
    explicit EncoderLayerImpl(const ModelConfig& c);
    /// off: [H] flags of heads whose output is zeroed (see MultiHeadAttention), or null. stream, when
    /// given, gets the residual after each sublayer, (B, S, C) each.
    torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& mask, torch::Tensor* probs,
                          const std::uint8_t* off = nullptr, std::vector<torch::Tensor>* stream = nullptr);

    MultiHeadAttention self_attn{nullptr};
    FeedForward feed_forward{nullptr};
    torch::nn::ModuleList sublayer{nullptr};
};
TORCH_MODULE(EncoderLayer);

} // namespace core::nn
