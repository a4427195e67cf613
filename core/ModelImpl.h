#pragma once
// Model's torch side, shared with the other torch translation units of core/ (never with callers).

#include "core/Model.h"
#include "core/nn/Transformer.h"

namespace core {

struct Model::Impl {
    ModelConfig config;
    std::string directory;
    std::unique_ptr<Tokenizer> srcTokenizer; // null for decoder-only
    std::unique_ptr<Tokenizer> tgtTokenizer;
    nn::Transformer net{nullptr};
    torch::Device device{torch::kCPU};

    /// Throws InputError unless ids are non-empty, fit max_len and lie inside a vocabulary of `vocab`.
    void checkIds(const std::vector<int64_t>& ids, int64_t vocab, const char* side) const;
    torch::Tensor toTensor(const std::vector<int64_t>& ids) const; // (1, T) on the model's device
    /// The target id that marks padding, or -1 when there is none: GPT-2's <|endoftext|> is pad and bos at
    /// once, and a prompt that starts with it must attend to it.
    int64_t pad() const {
        const auto& v = tgtTokenizer->vocab();
        return v.pad() == v.bos() ? -1 : v.pad();
    }
    int64_t srcPad() const { return (srcTokenizer ? srcTokenizer : tgtTokenizer)->vocab().pad(); }
};

/// Xavier-uniform for every matrix, as the seed's make_model initialises.
void initLikeSeed(nn::TransformerImpl& net);
/// Writes config.json, the tokenizer file(s) and model.safetensors (F32) into dir, each atomically.
/// src is null for decoder-only models or when both sides share tgt's tokenizer file.
void writeModelDirectory(const std::string& dir, const ModelConfig& config, const Tokenizer* src,
                         const Tokenizer& tgt, nn::TransformerImpl& net);
/// Rows of ids as one (rows, longest) tensor, shorter rows filled with pad.
torch::Tensor paddedIds(const std::vector<std::vector<int64_t>>& rows, int64_t pad);
/// Device choice to a torch device; Cuda without CUDA is an InputError.
torch::Device resolveDevice(DeviceChoice choice);

} // namespace core
