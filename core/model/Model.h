#pragma once
// model/ — what a model is: its config, weights and tokenizers, read from and written to a model
// directory. Model is immutable once made and shared read-only by every session; ModelDirectory is the
// one reader and writer of a directory (our format, which mirrors the seed's state_dict names, and
// Hugging Face GPT-2, Llama- and BERT-family and Marian folders, mapped by Gpt2Checkpoint, LlamaCheckpoint,
// BertCheckpoint and MarianCheckpoint with HfConfigKeys and HfTensors); ModelConfig is config.json;
// Safetensors, WeightFiles and WeightIO move tensors between files and the torch modules of nn/;
// AttentionBlock is the plain buffer a forward pass captures attention into. model/ includes base/ and text/,
// never run/, analysis/ or train/. Core's own computations reach the torch side through ModelParts.h
// (read-only); callers outside core/ never see a torch type.

#include "core/base/Runtime.h"
#include "core/model/ModelConfig.h"
#include "core/model/Safetensors.h"
#include "core/text/Token.h"
#include "core/text/Tokenizer.h"
#include "core/text/Vocabulary.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace core {

struct ModelParts;

class Model {
public:
    /// Reads a model directory (ModelDirectory::read). Throws ModelError, ConfigError, FormatError or
    /// IoError with a message naming the file (and the tensor) that is wrong.
    static std::shared_ptr<const Model> load(const std::string& dir,
                                             DeviceChoice device = DeviceChoice::Auto);
    /// Fresh random weights (Xavier-uniform for a Transformer's matrices, as the seed's make_model; torch's
    /// own initialisation for the recurrent families, as the seed's modules have), for `init` and tests. A
    /// classifier's target side is made from its classes: tgt is ignored (and may be null below).
    static std::shared_ptr<const Model> createRandom(const ModelConfig& config, Vocabulary src,
                                                     Vocabulary tgt, uint64_t seed,
                                                     DeviceChoice device = DeviceChoice::Auto);
    /// The same with ready tokenizers (a SentencePiece model, say); src is null for decoder-only models.
    static std::shared_ptr<const Model> createRandom(const ModelConfig& config,
                                                     std::unique_ptr<Tokenizer> src,
                                                     std::unique_ptr<Tokenizer> tgt, uint64_t seed,
                                                     DeviceChoice device = DeviceChoice::Auto);
    /// Wraps fully built parts (read from a directory, trained in this process) as a shared immutable model.
    static std::shared_ptr<const Model> adopt(std::unique_ptr<ModelParts> parts);
    /// A vocabulary of `size` tokens for a fresh model: the specials, printable ASCII, then placeholders.
    static Vocabulary defaultVocabulary(int64_t size);

    ~Model();
    Model(const Model&) = delete;
    Model& operator=(const Model&) = delete;

    /// Writes config.json, the vocabulary file(s) and model.safetensors (ModelDirectory::write). The
    /// parameters are stored as `dtype` (F32 or F16, half the size); the sinusoidal tables the seed's
    /// state_dict carries stay F32. A weight beyond F16's range is an InputError naming the tensor, and then
    /// nothing is written.
    void save(const std::string& dir, DType dtype = DType::F32) const;

    const ModelConfig& config() const;
    const std::string& directory() const; ///< empty for a model made in memory
    std::string deviceName() const;
    const Tokenizer& sourceTokenizer() const; ///< same as target for decoder-only models
    const Tokenizer& targetTokenizer() const;

    /// Source text as the model was trained to see it: sourceFrame()'s ids around its tokens. Unknown
    /// pieces stay marked.
    std::vector<Token> sourceTokens(const std::string& text) const;
    /// The special ids a source starts and ends with: <bos> and <eos> for a translation trained here, what
    /// the tokenizer puts around one sequence for an encoder-only model ([CLS] and [SEP]) and for Marian
    /// (nothing and </s>).
    std::pair<std::vector<int64_t>, std::vector<int64_t>> sourceFrame() const;
    /// Target prefix: <bos> tokens; a decoder-only prompt: the tokenizer's prompt prefix (<bos>, or what a
    /// tokenizer.json's post-processor puts first, maybe nothing), then the tokens.
    std::vector<Token> targetTokens(const std::string& text) const;
    /// Tokens for ids given as they are (no specials added); throws InputError for an id outside the
    /// vocabulary.
    std::vector<Token> tokensFromIds(const std::vector<int64_t>& ids, bool source) const;

    /// The (positions × d_model) table added to the embeddings of one side, row-major; empty for rope/none.
    /// A sinusoid stored in halves (Marian's) comes with its columns in pairs, sine and cosine of one
    /// frequency side by side (columns 2i and 2i+1), as the positional views and measures read every table.
    std::vector<float> positionalTable(bool source) const;

private:
    explicit Model(std::unique_ptr<ModelParts> parts);
    friend const ModelParts& parts(const Model& model);
    std::unique_ptr<const ModelParts> parts_;
};

} // namespace core
