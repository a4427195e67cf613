#pragma once
// Decoding one token at a time with a KV cache: a step costs work proportional to the current length.

#include "core/AttentionSnapshot.h"
#include "core/Model.h"

#include <memory>
#include <vector>

namespace core {

class IncrementalDecoder {
public:
    /// What n new target tokens, fed at positions t … t + n − 1, produced.
    struct Step {
        std::vector<float> logProbs; ///< [V] distribution of the token after the last one
        AttentionBlock selfRows;     ///< [L][H][n][t+n]: the new tokens' decoder self-attention rows (causal)
        AttentionBlock crossRows;    ///< [L][H][n][S]: their cross-attention rows (empty for decoder-only)
        double ms = 0.0;
    };

    /// Encodes src once (ignored for decoder-only). Throws InputError as Model::analyze does.
    IncrementalDecoder(std::shared_ptr<const Model> model, const std::vector<int64_t>& src,
                       bool capture = true);
    ~IncrementalDecoder();
    IncrementalDecoder(const IncrementalDecoder&) = delete;
    IncrementalDecoder& operator=(const IncrementalDecoder&) = delete;

    /// Feeds the next target token at position length(). Throws InputError past max_len or outside the
    /// vocabulary.
    Step push(int64_t token);
    /// Feeds several tokens in one pass (a prompt or a teacher-forced prefix): one forward over all of
    /// them instead of one per token, which for a 1,024-token prompt on GPT-2 small's shape is the
    /// difference between seconds and a minute. Throws as push(token) does, and for no tokens.
    Step push(const std::vector<int64_t>& tokens);
    /// Forgets every token from position `length` on (stepping back is a rewind, not a recompute).
    void rewind(int64_t length);
    int64_t length() const;

    const AttentionBlock& encoderAttention() const; ///< [L][H][S][S], empty for decoder-only
    double encodeMs() const;
    const Model& model() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace core
