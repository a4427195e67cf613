#include "core/model/nn/Transformer.h"

#include <torch/torch.h>

namespace core::nn {

TransformerImpl::TransformerImpl(const ModelConfig& c) : config_(c) {
    if (c.hasEncoder()) {
        encoder = register_module("encoder", Encoder(c));
        src_embed = register_module("src_embed", EmbedStack(c, c.srcVocabSize));
    }
    if (c.hasDecoder()) {
        decoder = register_module("decoder", Decoder(c, c.hasEncoder()));
        tgt_embed = register_module(
            "tgt_embed", EmbedStack(c, c.tgtVocabSize, c.shareEmbeddings ? src_embed->tokens : nullptr));
    }
    // An encoder-only model's output (its MLM head) reads the source's table; one without a head has none.
    if (c.hasOutput()) {
        const auto& table = c.hasDecoder() ? tgt_embed : src_embed;
        generator = register_module("generator",
                                    Generator(c, c.tieOutput ? table->tokens->lut->weight : torch::Tensor()));
    }
}

torch::Tensor TransformerImpl::encode(const torch::Tensor& src, const torch::Tensor& srcMask,
                                      Capture* capture, const HeadAblation* ablation) {
    return encoder->forward(src_embed->forward(src, 0), srcMask, capture, ablation); // (B, S, C)
}

torch::Tensor TransformerImpl::decode(const torch::Tensor& tgt, const torch::Tensor& memory,
                                      const torch::Tensor& srcMask, const torch::Tensor& tgtMask,
                                      int64_t pos0, DecodeCache* cache, Capture* capture, bool lastOnly,
                                      const HeadAblation* ablation) {
    return decoder->forward(tgt_embed->forward(tgt, pos0), memory, srcMask, tgtMask, pos0, cache, capture,
                            lastOnly, ablation);
}

torch::Tensor sourceMask(const torch::Tensor& src, int64_t pad) {
    return (src != pad).unsqueeze(-2); // (B, 1, S)
}

torch::Tensor targetMask(const torch::Tensor& tgt, int64_t pad) {
    const auto t = tgt.size(-1);
    const auto causal =
        torch::ones({1, t, t}, torch::TensorOptions().dtype(torch::kBool).device(tgt.device()))
            .tril();                            // (1, T, T)
    return (tgt != pad).unsqueeze(-2) & causal; // (B, T, T)
}

} // namespace core::nn
