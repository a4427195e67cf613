#pragma once
// Shapes: B batch, T time, C channels, V vocabulary.

#include "core/model/ModelConfig.h"
#include "core/model/nn/LayerNorm.h"

#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

namespace core::nn {

/// The seed's Generator: log_softmax(proj(x)). Tied: proj is an embedding table, with a bias only where the
/// config says (tied_output_bias: BERT's MLM decoder, Marian's final_logits_bias). With mlm_head, x first
/// passes BERT's transform: norm(act(dense(x))).
class GeneratorImpl : public torch::nn::Module {
public:
    /// tiedWeight: the (V, C) table a tied output reads; undefined for an untied one.
    GeneratorImpl(const ModelConfig& c, torch::Tensor tiedWeight);
    torch::Tensor logits(const torch::Tensor& x);  // (B, T, C) -> (B, T, V)
    torch::Tensor forward(const torch::Tensor& x); // (B, T, C) -> (B, T, V) log-probabilities
    /// The output layer's matrix (V, C) and bias (V, undefined without one), whichever way it is held (a
    /// tied table, proj): what direct logit attribution reads each component through.
    torch::Tensor outputWeight() const { return tied_.defined() ? tied_ : proj->weight; }
    torch::Tensor outputBias() const { return tied_.defined() ? bias : proj->bias; }
    Activation activation() const { return activation_; }

    torch::nn::Linear proj{nullptr};  // untied only
    torch::nn::Linear dense{nullptr}; // mlm_head only
    LayerNorm norm{nullptr};          // mlm_head only
    torch::Tensor bias;               // (V), tied with tied_output_bias only

private:
    torch::Tensor tied_; // (V, C)
    Activation activation_;
};
TORCH_MODULE(Generator);

} // namespace core::nn
