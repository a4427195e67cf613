#pragma once
// Shapes: B batch, T time, C channels.

#include "core/model/nn/LayerNorm.h"
#include "core/model/nn/PositionalTable.h"
#include "core/model/nn/TokenEmbedding.h"

namespace core::nn {

/// The seed's nn.Sequential(Embeddings, PositionalEncoding): children "0" (lut) and "1" (positions),
/// so tensor names read src_embed.0.lut.weight, src_embed.1.pe as in the seed's state_dict; with
/// embedding_norm a third, "2", the norm BERT applies to their sum.
class EmbedStackImpl : public torch::nn::Module {
public:
    /// shared: reuse another side's token table without registering it again (its tensors are named once).
    EmbedStackImpl(const ModelConfig& c, int64_t vocab, TokenEmbedding shared = nullptr);
    torch::Tensor forward(const torch::Tensor& ids, int64_t pos0); // (B, T) -> (B, T, C)

    TokenEmbedding tokens{nullptr};
    PositionalTable positions{nullptr};
    LayerNorm norm{nullptr}; // embedding_norm only
};
TORCH_MODULE(EmbedStack);

} // namespace core::nn
