#pragma once
// The seed's attention-pooling classifier behind the StepDecoder interface: it reads its source once, and
// its one answer is a distribution over its classes (the target side's tokens after the four specials).

#include "core/run/StepDecoder.h"

namespace core {

class ClassifierDecoder : public StepDecoder {
public:
    /// Classifies src (at most `positions` tokens, max_len when 0). Throws InputError for an empty source,
    /// too long a one or an id outside the vocabulary.
    ClassifierDecoder(std::shared_ptr<const Model> model, const std::vector<int64_t>& src,
                      int64_t positions = 0);

    /// Takes the <bos> a Session starts every run with and answers; any other feed is an InputError (a
    /// classifier decodes nothing).
    Step push(const std::vector<int64_t>& tokens) override;
    void rewind(int64_t length) override;
    int64_t length() const override { return length_; }

    const AttentionBlock& sourceAttention() const override { return pooling_; } ///< [1][1][1][S]
    AttentionKind sourceKind() const override { return AttentionKind::Pooling; }
    double encodeMs() const override { return ms_; }
    bool generates() const override { return false; }
    const PoolingDetail* poolingDetail() const override { return &detail_; }

    /// The pooling row: its learned query (the attention layer's weights) against the BiLSTM's outputs,
    /// the scores before softmax (their bias as the shift), the weights and the context they pool.
    InsideRow inside(const InsideQuery& query) const override;

private:
    std::shared_ptr<const Model> model_;
    AttentionBlock pooling_;
    std::vector<float> logProbs_; // [V] over the target side: −∞ for the specials
    Matrix states_;               // S × 2H: the BiLSTM's outputs
    PoolingDetail detail_;
    double ms_ = 0.0;
    int64_t length_ = 0;
};

} // namespace core
