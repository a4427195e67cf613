#pragma once
// The torch side of a Model, for core's own computations (run/, analysis/, train/); never included by the
// UI or the app. A Model hands these out only as `const ModelParts&` through parts(): config, tokenizers
// and weights can be read and run, not changed.
//
// Shapes: B batch, S source length, T target length, C channels, V target vocabulary.

#include "core/base/Runtime.h"
#include "core/model/ModelConfig.h"
#include "core/model/nn/AttentionClassifier.h"
#include "core/model/nn/GruTranslator.h"
#include "core/model/nn/Transformer.h"
#include "core/text/Tokenizer.h"

#include <torch/types.h>

#include <memory>
#include <string>
#include <vector>

namespace core {

class Model;

struct ModelParts {
    ModelConfig config;
    std::string directory;                   // empty for a model made in memory
    std::unique_ptr<Tokenizer> srcTokenizer; // null for decoder-only
    std::unique_ptr<Tokenizer> tgtTokenizer; // a classifier's: its classes after the four specials
    // The network of config.family; the others stay null.
    nn::Transformer net{nullptr};
    nn::AttentionClassifier classifier{nullptr};
    nn::GruTranslator gru{nullptr};
    torch::Device device{torch::kCPU};

    /// The family's network, whichever it is (to move, save or count it).
    torch::nn::Module& module() const;

    /// The source side's tokenizer (the target's for decoder-only models).
    const Tokenizer& sourceTokenizer() const { return srcTokenizer ? *srcTokenizer : *tgtTokenizer; }
    /// Throws InputError unless ids are non-empty, fit `positions` (max_len when 0) and lie inside a
    /// vocabulary of `vocab`.
    void checkIds(const std::vector<int64_t>& ids, int64_t vocab, const char* side,
                  int64_t positions = 0) const;
    torch::Tensor toTensor(const std::vector<int64_t>& ids) const; // (1, T) on the model's device
    /// The target id that marks padding, or -1 when there is none: GPT-2's <|endoftext|> is pad and bos at
    /// once, and a prompt that starts with it must attend to it.
    int64_t pad() const {
        const auto& v = tgtTokenizer->vocab();
        return v.pad() == v.bos() ? -1 : v.pad();
    }
    /// The source id that marks padding, or -1 when the pad token is the one a sequence ends (or starts)
    /// with: a tokenizer without a pad of its own must not hide its [SEP] or </s> from every query.
    int64_t srcPad() const {
        const auto& v = sourceTokenizer().vocab();
        return v.pad() == v.eos() || v.pad() == v.bos() ? -1 : v.pad();
    }

    // Forward passes for inference. LibTorch's forward() members are not const, but these change no
    // parameter and no buffer (the model is in eval mode for good), so a const model may run them. The
    // Transformer's three throw InputError for a model of another family.
    // ablation: heads whose output is zeroed before W_O, or null for none.
    torch::Tensor encode(const torch::Tensor& src, const torch::Tensor& srcMask, nn::Capture* capture,
                         const HeadAblation* ablation = nullptr) const; // (B, S, C)
    torch::Tensor decode(const torch::Tensor& tgt, const torch::Tensor& memory, const torch::Tensor& srcMask,
                         const torch::Tensor& tgtMask, int64_t pos0, nn::DecodeCache* cache,
                         nn::Capture* capture, bool lastOnly = false,
                         const HeadAblation* ablation = nullptr) const; // (B, T|1, C)
    torch::Tensor logits(const torch::Tensor& h) const;                 // (B, T, V)
    /// The residual stream h of a side (the decoder's, or an encoder-only model's encoder) as the model
    /// reads its last layer's: through that side's final norm (a pre-norm model's; a post-norm model's
    /// stream is already normed), the state logits() takes. What the logit lens reads at every point.
    torch::Tensor finalNorm(const torch::Tensor& h, bool encoderSide) const; // (B, T, C)
    torch::Tensor logProbs(const torch::Tensor& h) const;                    // (B, T, V)
    /// An encoder-only model's answer: the row of the first mask token ([MASK], <mask>) in src and its
    /// masked-LM head's log-probabilities there, from the encoder's output memory (1, S, C). Row −1 and
    /// nothing computed when the model has no head or src no mask.
    std::pair<int, std::vector<float>> maskFill(const std::vector<int64_t>& src,
                                                const torch::Tensor& memory) const;
    /// The classifier on one text: tokens (1, T), every one read.
    nn::AttentionClassifierImpl::Output classify(const torch::Tensor& tokens) const;
    /// The GRU translator's encoder over src (1, S): its states (1, S, H) and last hidden state (1, 1, H).
    std::tuple<torch::Tensor, torch::Tensor> encodeRecurrent(const torch::Tensor& src) const;
    /// One step of the GRU translator's decoder: input (1, 1), hidden (1, 1, H), states (1, S, H).
    nn::AttentionDecoderRnnImpl::Step decodeRecurrent(const torch::Tensor& input, const torch::Tensor& hidden,
                                                      const torch::Tensor& states) const;

private:
    nn::TransformerImpl& transformer() const; // throws InputError for another family
};

/// The one way into a model's parts: read-only.
const ModelParts& parts(const Model& model);

/// The network a config describes, its parameters uninitialised: the one place one is allocated. Throws
/// ConfigError when `copies` of its weights (a trainer keeps weights, gradients and two Adam moments) would
/// not fit in memory, and turns an allocation that fails anyway into a ModelError instead of an abort.
nn::Transformer buildNetwork(const ModelConfig& config, int copies = 1);
/// A classifier's target side: a word tokenizer over its classes (after the four special tokens), so its
/// answer is a distribution over tokens like any model's.
std::unique_ptr<Tokenizer> classTokenizer(const ModelConfig& config);
/// Builds the network of parts.config's family into parts (buildNetwork for a Transformer; torch's own
/// initialisation for the recurrent families, as the seed's modules have), under the same memory checks.
void buildFamilyNetwork(ModelParts& parts, int copies = 1);
/// Xavier-uniform for every matrix, as the seed's make_model initialises.
void initLikeSeed(nn::TransformerImpl& net);
/// Rows of ids as one (rows, longest) tensor, shorter rows filled with pad.
torch::Tensor paddedIds(const std::vector<std::vector<int64_t>>& rows, int64_t pad);
/// Device choice to a torch device; Cuda without CUDA is an InputError.
torch::Device resolveDevice(DeviceChoice choice);

} // namespace core
