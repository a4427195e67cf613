#pragma once
// Decoding one token at a time with a KV cache: a step costs work proportional to the current length.

#include "core/model/Model.h"
#include "core/run/StepDecoder.h"

#include <memory>
#include <vector>

namespace core {

/// The Transformer's StepDecoder.
class IncrementalDecoder : public StepDecoder {
public:
    /// Encodes src once (ignored for decoder-only). Each side may hold `positions` tokens (max_len when 0;
    /// see ModelConfig::positions). The heads of `ablation` are switched off in every pass. Throws InputError
    /// as core::analyze does, and as checkAblation. With capture, `layerDone` is called after each layer of
    /// the encoder's pass and of every push.
    IncrementalDecoder(std::shared_ptr<const Model> model, const std::vector<int64_t>& src,
                       bool capture = true, int64_t positions = 0, const HeadAblation& ablation = {},
                       LayerDone layerDone = {});
    /// Many rows decoded side by side, without capture (batched evaluation): the sources are padded to
    /// the longest and masked, so each row's answer is the one it would get alone. For decoder-only
    /// models `rows` gives the number of rows and the sources are ignored.
    IncrementalDecoder(std::shared_ptr<const Model> model, const std::vector<std::vector<int64_t>>& sources,
                       std::size_t rows);
    ~IncrementalDecoder() override;
    IncrementalDecoder(const IncrementalDecoder&) = delete;
    IncrementalDecoder& operator=(const IncrementalDecoder&) = delete;

    /// Feeds the next target token at position length(). Throws InputError past max_len or outside the
    /// vocabulary.
    Step push(int64_t token);
    /// Feeds several tokens in one pass (a prompt or a teacher-forced prefix): one forward over all of
    /// them instead of one per token, which for a 1,024-token prompt on GPT-2 small's shape is the
    /// difference between seconds and a minute. Throws as push(token) does, and for no tokens.
    Step push(const std::vector<int64_t>& tokens) override;
    /// Feeds the same number of tokens to every row (tokens[r] to row r) and returns each row's most
    /// likely next token. Rows of a decoder-only batch must have prompts of one length: a padded causal
    /// prompt would shift its positions.
    std::vector<int64_t> pushGreedy(const std::vector<std::vector<int64_t>>& tokens);
    std::size_t rows() const;
    void rewind(int64_t length) override;
    int64_t length() const override;

    const AttentionBlock& sourceAttention() const override; ///< [L][H][S][S], empty for decoder-only
    /// False for an encoder-only model: it reads its text once, and its one step (taken with no tokens) is
    /// its masked-LM head's distribution at the first mask token, if the model has the head and the text a
    /// mask.
    bool generates() const override;
    double encodeMs() const override;
    /// Needs a decoder made with capture (it keeps the residual rows); see StepDecoder::inside.
    InsideRow inside(const InsideQuery& query) const override;
    /// Computes each key's norm once and keeps it (a later call computes only keys fed since), so a
    /// snapshot after every step costs the new keys alone.
    KeyNorms valueNorms(AttentionKind kind) const override;
    const Model& model() const;

private:
    Step readOnly(const std::vector<int64_t>& tokens); // encoder-only: the one step
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace core
