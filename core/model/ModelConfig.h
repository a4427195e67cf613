#pragma once
// The architecture and sizes of a model, as stored in the model directory's config.json.

#include "core/model/RopeScaling.h"
#include "core/text/TokenizerFactory.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace core {

/// Which network a model directory holds. The Transformer's fields (layers, heads, d_model, …) describe only
/// it; the seed's recurrent attention models have their own few, and read as one layer of one head.
enum class Family {
    Transformer,         ///< attention all the way: encoder–decoder or decoder-only
    AttentionClassifier, ///< the seed's AttentionTextClassifier: a BiLSTM pooled by attention into classes
    GruAttention         ///< the seed's EncoderRNN and AttentionDecoderRNN: a GRU translator
};
/// How a GRU decoder scores an encoder state j against its hidden state h.
enum class RecurrentScore {
    Concat,  ///< the seed's Linear(2H, 1) on [enc_j; h]: h adds the same to every score, so the weights
             ///< cannot depend on it and every decode step attends alike
    Additive ///< Bahdanau et al.'s v·tanh(W [enc_j; h] + b): the weights follow the decoder's state
};
enum class Architecture {
    EncoderDecoder, ///< the seed's: an encoder reads the source, a decoder writes the target
    DecoderOnly,    ///< a language model: the decoder alone, its prompt the target
    EncoderOnly     ///< BERT's: the encoder alone reads the text and nothing is decoded
};
enum class PositionalEncoding { Sinusoidal, Learned, Rope, None };
enum class LayerNormKind {
    Seed,     ///< a·(x−mean)/(std+eps)+b with the unbiased std, as in the Annotated Transformer
    Standard, ///< a·(x−mean)/sqrt(var+eps)+b with the biased variance (torch.nn.LayerNorm, GPT-2)
    Rms       ///< a·x/sqrt(mean(x²)+eps), no centring and no bias (RMSNorm: Llama, Mistral, Qwen2)
};
enum class Activation { Relu, Gelu, GeluTanh, Silu };

/// Every field has a default; `fromJson` validates and names the offending field.
struct ModelConfig {
    std::string name = "unnamed";        // shown in the UI and in dumps
    std::string description;             // one line on what the model does, for people
    std::string example;                 // an input it takes ("321+54"): the first text
    Family family = Family::Transformer; // "transformer" | "attention_classifier" | "gru_attention"
    Architecture architecture =
        Architecture::EncoderDecoder; // "encoder_decoder" | "decoder_only" | "encoder_only"
    int encoderLayers = 2;            // N of the encoder stack (ignored for decoder_only)
    int decoderLayers = 2;            // N of the decoder stack (ignored for encoder_only)
    int dModel = 64;                  // residual stream width C
    int heads = 4;                    // H; dModel must be divisible by it
    int dFf = 256;         // hidden width of the position-wise feed-forward; 0: attention-only layers
    int srcVocabSize = 32; // encoder embedding rows (ignored for decoder_only)
    int tgtVocabSize = 32; // decoder embedding rows and generator outputs
    int maxLen = 512;      // longest sequence a side may have
    PositionalEncoding positional =
        PositionalEncoding::Sinusoidal; // "sinusoidal" | "learned" | "rope" | "none"
    bool sinusoidHalves = false; // sinusoidal: sines in columns [0, C/2), cosines after (Marian); else pairs
    LayerNormKind layerNorm = LayerNormKind::Seed; // "seed" | "standard" | "rms"
    double normEps = 1e-6;                         // the seed adds eps to the std; standard adds it to var
    Activation activation = Activation::Relu;      // "relu" | "gelu" | "gelu_tanh" | "silu"
    bool scaleEmbeddings = true;  // multiply token embeddings by sqrt(dModel), as the seed does
    bool shareEmbeddings = false; // source and target use one table (needs equal vocabularies)
    bool tieOutput = false;       // generator weight is the target embedding table
    double ropeBase = 10000.0;    // θ_i = base^(−2i/hs) for rotary positions
    RopeStyle ropeStyle = RopeStyle::Interleaved; // "interleaved" (pairs 2i, 2i+1) | "halves" (i, i + hs/2)
    RopeScaling ropeScaling; // "rope_scaling": how long-context models stretch the angles; none by default
    int slidingWindow = 0;   // "sliding_window": a query sees at most this many keys back (Mistral); 0: all
    int kvHeads = 0;         // key/value heads shared by groups of query heads (grouped-query); 0: heads
    bool gatedFeedForward = false; // w_2(act(w_1 x) · w_3 x), SwiGLU with silu; else w_2(act(w_1 x))
    bool qkvBias = true;           // the q, k and v projections add a bias
    bool linearBias = true;        // the attention output and feed-forward projections add a bias
    bool outputBias = true;        // an untied generator adds a bias
    bool tiedOutputBias =
        false;             // a tied generator adds a bias (BERT's MLM decoder, Marian's final_logits_bias)
    bool postNorm = false; // each sublayer is norm(x + f(x)) and a stack ends without a norm (BERT, Marian)
    bool embeddingNorm = false; // a norm after token and position embeddings are added (BERT)
    bool maskedLmHead = false; // encoder_only: an output for masked tokens, dense, activation and norm before
                               // the tied table (BERT's MLM head); without it the model has no output
    TokenizerKind tokenizer =
        TokenizerKind::Char; // "char" | "word" | "sentencepiece" | "byte_bpe" | "tokenizer_json" | "marian"
    std::string srcVocabFile = "vocab.json"; // the source side's vocab.json, or SentencePiece .model
    std::string tgtVocabFile = "vocab.json"; // the target side's vocab.json, or SentencePiece .model
    bool lowercase = false;                  // word tokenizer: fold case before lookup
    std::string mergesFile = "merges.txt";   // byte_bpe: the merges beside tgt_vocab (GPT-2's format)

    // The recurrent families (their vocabularies are src_vocab_size and tgt_vocab_size, their longest input
    // max_len, their tokenizer as above).
    int embedSize = 64;               // attention_classifier: E, the embedding width
    int hiddenSize = 64;              // the LSTM's width per direction, or the GRU's (and its embeddings')
    std::vector<std::string> classes; // attention_classifier: the class names, in the order of the logits
    RecurrentScore score = RecurrentScore::Concat; // gru_attention: "concat" (the seed's) | "additive"

    int headDim() const { return dModel / heads; }
    /// Key/value heads: kvHeads, or one per query head.
    int keyValueHeads() const { return kvHeads > 0 ? kvHeads : heads; }
    /// The key/value head query head h reads (grouped-query attention: consecutive query heads share one).
    int keyValueHeadOf(int h) const { return h / (heads / keyValueHeads()); }
    bool recurrent() const { return family != Family::Transformer; }
    /// Whether positions past max_len can be computed at all: a sinusoidal table and rotary angles extend
    /// by their formula (to positions training never saw); a learned table ends at max_len.
    /// A sliding window is held by max_len (inputs never outgrow it), so it cannot be passed either.
    bool canPassMaxLen() const { return positional != PositionalEncoding::Learned && slidingWindow == 0; }
    /// The longest sequence a side may have: max_len, or kPastMaxLen times it when going past is asked
    /// for and possible (a bound, so a pasted book still cannot exhaust memory).
    int64_t positions(bool pastMaxLen) const {
        return pastMaxLen && canPassMaxLen() ? int64_t{kPastMaxLen} * maxLen : maxLen;
    }
    static constexpr int kPastMaxLen = 4;
    /// Whether the model reads a source with an encoder (encoder–decoder and encoder-only models).
    bool hasEncoder() const { return architecture != Architecture::DecoderOnly; }
    /// Whether it has a decoder and so generates (all but encoder-only models).
    bool hasDecoder() const { return architecture != Architecture::EncoderOnly; }
    /// Whether it has two sides, a source and a target, each with its tokenizer (encoder–decoder models).
    bool twoSided() const { return architecture == Architecture::EncoderDecoder; }
    /// Whether it has an output distribution at all (an encoder-only model only with its MLM head).
    bool hasOutput() const { return hasDecoder() || maskedLmHead; }
    /// The tokenizer fields, as the text/ factory takes them.
    TokenizerSpec tokenizerSpec() const { return {tokenizer, lowercase, mergesFile}; }

    /// Parses and validates config.json text. `source` names the file in messages.
    static ModelConfig fromJson(const std::string& text, const std::string& source = "config.json");
    /// The same for config.json already parsed (ModelDirectory parses it once to decide its format).
    static ModelConfig fromParsed(const nlohmann::json& json, const std::string& source);
    /// Reads and parses a file; throws IoError if it cannot be read.
    static ModelConfig fromFile(const std::string& path);
    /// Serialises every field, so a written config documents itself.
    std::string toJson() const;
    /// The architecture in a line: "encoder-decoder, 3+3 layers, d_model 256, 4 heads", "BiLSTM attention
    /// pooling, embedding 64, hidden 2×64, 2 classes", "GRU with additive attention, hidden 256".
    std::string shape() const;
    /// Throws ConfigError naming the first invalid field, or when the weights alone would not fit in this
    /// machine's memory (so that a typo in a size is refused before anything is allocated).
    void validate(const std::string& source = "config.json") const;

    /// Values in the model's parameters (a shared or tied table counted once), computed from the sizes
    /// without allocating anything; tests hold it to the modules' own count.
    int64_t parameterCount() const;
    /// Values in its fixed tables (the sinusoidal positions): buffers, not parameters.
    int64_t bufferCount() const;
    /// Bytes of float32 weights and tables.
    int64_t weightBytes() const { return 4 * (parameterCount() + bufferCount()); }

private:
    void validateTransformer(const std::string& source) const;
    void validateRecurrent(const std::string& source) const;
    int64_t recurrentParameterCount() const;
    void recurrentToJson(nlohmann::json& j) const;
};

const char* toString(Family);
const char* toString(RecurrentScore);
const char* toString(Architecture);
const char* toString(PositionalEncoding);
const char* toString(LayerNormKind);
const char* toString(Activation);
const char* toString(TokenizerKind);
const char* toString(RopeStyle);

} // namespace core
