#pragma once
// Decoding one token at a time with a KV cache: a step costs work proportional to the current length.

#include "core/AttentionSnapshot.h"
#include "core/Model.h"

#include <memory>
#include <vector>

namespace core {

class IncrementalDecoder {
public:
    /// What one new target token produced.
    struct Step {
        std::vector<float> logProbs; ///< [V] distribution of the token after this one
        AttentionBlock selfRows;     ///< [L][H][1][t+1]: the new token's decoder self-attention row
        AttentionBlock crossRows;    ///< [L][H][1][S]: its cross-attention row (empty for decoder-only)
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
