#include "core/model/nn/EmbedStack.h"

#include <torch/torch.h>

namespace core::nn {

EmbedStackImpl::EmbedStackImpl(const ModelConfig& c, int64_t vocab, TokenEmbedding shared) {
    tokens = shared ? shared : register_module("0", TokenEmbedding(vocab, c.dModel, c.scaleEmbeddings));
    positions = register_module("1", PositionalTable(c.positional, c.maxLen, c.dModel, c.sinusoidHalves));
    if (c.embeddingNorm)
        norm = register_module("2", LayerNorm(c.dModel, c.layerNorm, c.normEps));
}

torch::Tensor EmbedStackImpl::forward(const torch::Tensor& ids, int64_t pos0) {
    const auto x = positions->forward(tokens(ids), pos0); // (B, T, C)
    return norm ? norm(x) : x;
}

} // namespace core::nn
