#pragma once
// An immutable model: config, weights and tokenizers, loaded from a model directory. Shared read-only
// by every session; the mutable state of a run lives in Session.

#include "core/AttentionSnapshot.h"
#include "core/ModelConfig.h"
#include "core/Runtime.h"
#include "core/Safetensors.h"
#include "core/Tokenizer.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace core {

class Model {
public:
    /// Reads dir/config.json, the vocabulary file(s) and dir/model.safetensors. Throws ModelError,
    /// ConfigError, FormatError or IoError with a message naming the file (and the tensor) that is wrong.
    static std::shared_ptr<const Model> load(const std::string& dir,
                                             DeviceChoice device = DeviceChoice::Auto);
    /// Fresh random weights (Xavier-uniform for matrices, as the seed's make_model), for `init` and tests.
    static std::shared_ptr<const Model> createRandom(const ModelConfig& config, Vocabulary src,
                                                     Vocabulary tgt, uint64_t seed,
                                                     DeviceChoice device = DeviceChoice::Auto);
    /// The same with ready tokenizers (a SentencePiece model, say); src is null for decoder-only models.
    static std::shared_ptr<const Model> createRandom(const ModelConfig& config,
                                                     std::unique_ptr<Tokenizer> src,
                                                     std::unique_ptr<Tokenizer> tgt, uint64_t seed,
                                                     DeviceChoice device = DeviceChoice::Auto);
    /// A vocabulary of `size` tokens for a fresh model: the specials, printable ASCII, then placeholders.
    static Vocabulary defaultVocabulary(int64_t size);

    ~Model();
    Model(const Model&) = delete;
    Model& operator=(const Model&) = delete;

    /// Writes config.json, the vocabulary file(s) and model.safetensors, each atomically. The parameters are
    /// stored as `dtype` (F32 or F16, half the size); the sinusoidal tables the seed's state_dict carries
    /// stay F32. A weight beyond F16's range is an InputError naming the tensor, and then nothing is written.
    void save(const std::string& dir, DType dtype = DType::F32) const;

    const ModelConfig& config() const;
    const std::string& directory() const; ///< empty for a model made in memory
    std::string deviceName() const;
    const Tokenizer& sourceTokenizer() const; ///< same as target for decoder-only models
    const Tokenizer& targetTokenizer() const;

    /// Source text as the model was trained to see it: <bos> tokens <eos>. Unknown pieces stay marked.
    std::vector<Token> sourceTokens(const std::string& text) const;
    /// Target prefix (or a decoder-only prompt): <bos> tokens.
    std::vector<Token> targetTokens(const std::string& text) const;
    /// Tokens for ids given as they are (no specials added); throws InputError for an id outside the
    /// vocabulary.
    std::vector<Token> tokensFromIds(const std::vector<int64_t>& ids, bool source) const;

    /// Teacher-forced pass over src (ignored for decoder-only) and tgt, every attention captured when
    /// `capture` is set. Throws InputError for empty or too long inputs and ids outside the vocabulary.
    AttentionSnapshot analyze(const std::vector<int64_t>& src, const std::vector<int64_t>& tgt,
                              bool capture = true) const;

    /// The (positions × d_model) table added to the embeddings of one side, row-major; empty for rope/none.
    std::vector<float> positionalTable(bool source) const;

    struct Impl;
    Impl& impl() const { return *impl_; }
    /// Wraps a fully built Impl (weights trained in this process, say) as a shared immutable model.
    static std::shared_ptr<const Model> adopt(std::unique_ptr<Impl> impl);

private:
    explicit Model(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

} // namespace core
