#pragma once
// Shapes: B batch, T time, C channels, V vocabulary.

#include <torch/nn/module.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/pimpl.h>

namespace core::nn {

/// The seed's Embeddings: lut(ids)·√C (the scale can be turned off for models trained without it).
class TokenEmbeddingImpl : public torch::nn::Module {
public:
    TokenEmbeddingImpl(int64_t vocab, int64_t dModel, bool scale);
    torch::Tensor forward(const torch::Tensor& ids); // (B, T) -> (B, T, C)

    torch::nn::Embedding lut{nullptr}; // weight (V, C)

private:
    double scale_;
};
TORCH_MODULE(TokenEmbedding);

} // namespace core::nn
