#pragma once
// The seed's recurrent attention models behind a torch-free face, for code outside core (the bench) and for
// the families' decoders to come: the attention-pooling classifier reads a text at once; the GRU translator
// encodes a source once and then decodes a token at a time, keeping its hidden state. Weights are random
// (torch's generator seeded) or read from a safetensors file under the seed's names (WeightIO's
// loadParameters: every tensor, with its shape, and nothing else).

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace core {

class ClassifierNet {
public:
    ClassifierNet(int64_t vocab, int64_t embed, int64_t hidden, int64_t classes, uint64_t seed);
    ~ClassifierNet();
    /// Throws ModelError naming the file and the tensor.
    void load(const std::string& safetensorsPath);
    struct Result {
        std::vector<float> logits;  ///< [classes]
        std::vector<float> weights; ///< [tokens] the pooling attention
    };
    /// ids: at least one, each inside the vocabulary (an internal invariant here: callers check input).
    Result classify(const std::vector<int64_t>& ids) const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

class GruTranslatorNet {
public:
    GruTranslatorNet(int64_t srcVocab, int64_t tgtVocab, int64_t hidden, uint64_t seed);
    ~GruTranslatorNet();
    void load(const std::string& safetensorsPath);
    /// Encodes the source and starts from the encoder's last hidden state.
    void encode(const std::vector<int64_t>& src);
    struct Step {
        std::vector<float> logProbs; ///< [tgtVocab]
        std::vector<float> weights;  ///< [source length] the attention over the encoder's states
    };
    /// Feeds one target token; the hidden state moves on.
    Step step(int64_t token);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace core
