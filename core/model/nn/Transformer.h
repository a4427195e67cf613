#pragma once
// Shapes: B batch, S source length, T target length (new tokens), C channels, V target vocabulary.

#include "core/model/nn/Decoder.h"
#include "core/model/nn/EmbedStack.h"
#include "core/model/nn/Encoder.h"
#include "core/model/nn/Generator.h"

namespace core::nn {

/// The seed's EncoderDecoder (encoder, decoder, src_embed, tgt_embed, generator), or, for decoder_only,
/// the same without encoder and src_embed and with decoder layers that have no src_attn; for encoder_only,
/// encoder and src_embed alone, and the generator only as a masked-LM head.
/// Child names mirror the seed's module tree, so named_parameters() are the checkpoint's tensor names.
class TransformerImpl : public torch::nn::Module {
public:
    explicit TransformerImpl(const ModelConfig& c);

    /// ablation (here and in decode): heads whose output is zeroed, or null for none.
    torch::Tensor encode(const torch::Tensor& src, const torch::Tensor& srcMask, Capture* capture,
                         const HeadAblation* ablation = nullptr); // (B, S, C)
    /// Decoder hidden states after the final norm for tgt tokens starting at position pos0; with lastOnly
    /// only the last position's, (B, 1, C), for a caller that needs just the next-token distribution.
    torch::Tensor decode(const torch::Tensor& tgt, const torch::Tensor& memory, const torch::Tensor& srcMask,
                         const torch::Tensor& tgtMask, int64_t pos0, DecodeCache* cache, Capture* capture,
                         bool lastOnly = false, const HeadAblation* ablation = nullptr); // (B, T|1, C)

    const ModelConfig& config() const { return config_; }

    Encoder encoder{nullptr};
    Decoder decoder{nullptr};
    EmbedStack src_embed{nullptr};
    EmbedStack tgt_embed{nullptr};
    Generator generator{nullptr};

private:
    ModelConfig config_;
};
TORCH_MODULE(Transformer);

/// Source padding mask (B, 1, S): true where a key may be attended.
torch::Tensor sourceMask(const torch::Tensor& src, int64_t pad);
/// Target mask (B, T, T): not padding and not in the future (the Annotated Transformer's make_std_mask).
torch::Tensor targetMask(const torch::Tensor& tgt, int64_t pad);

} // namespace core::nn
