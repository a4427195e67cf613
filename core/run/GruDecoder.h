#pragma once
// The seed's GRU translator behind the StepDecoder interface: the encoder reads the source once, and every
// target token fed moves the decoder's hidden state on, attending over the encoder's states (one layer, one
// head of cross-attention). The hidden state after each token is kept, so stepping back is a rewind.

#include "core/run/StepDecoder.h"

#include <memory>

namespace core {

class GruDecoder : public StepDecoder {
public:
    /// Encodes src (at most `positions` tokens, max_len when 0). Throws InputError for an empty source, too
    /// long a one or an id outside the vocabulary.
    GruDecoder(std::shared_ptr<const Model> model, const std::vector<int64_t>& src, int64_t positions = 0);
    ~GruDecoder() override;

    Step push(const std::vector<int64_t>& tokens) override;
    void rewind(int64_t length) override;
    int64_t length() const override;

    const AttentionBlock& sourceAttention() const override; ///< empty: the encoder has no attention
    double encodeMs() const override;

    /// The cross row of target token `row`: the hidden state it was scored with, the encoder's states, the
    /// scores before softmax (the part every position shares as the shift), the weights and the context.
    InsideRow inside(const InsideQuery& query) const override;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace core
