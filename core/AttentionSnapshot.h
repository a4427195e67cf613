#pragma once
// What the views see of one analysis or one decoding step: plain data, no torch types.

#include "core/Token.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace core {

enum class AttentionKind { Encoder, Decoder, Cross };
const char* toString(AttentionKind);

/// Attention probabilities of every layer and head, [layer][head][query][key] in one row-major buffer.
struct AttentionBlock {
    int layers = 0;
    int heads = 0;
    int queries = 0;
    int keys = 0;
    std::vector<float> data;

    bool empty() const { return data.empty(); }
    std::size_t index(int layer, int head, int query, int key) const {
        return ((static_cast<std::size_t>(layer) * static_cast<std::size_t>(heads) +
                 static_cast<std::size_t>(head)) *
                    static_cast<std::size_t>(queries) +
                static_cast<std::size_t>(query)) *
                   static_cast<std::size_t>(keys) +
               static_cast<std::size_t>(key);
    }
    float at(int layer, int head, int query, int key) const { return data[index(layer, head, query, key)]; }
    /// The `keys` weights of one query row.
    const float* row(int layer, int head, int query) const {
        return data.data() + index(layer, head, query, 0);
    }
    void resize(int l, int h, int q, int k) {
        layers = l;
        heads = h;
        queries = q;
        keys = k;
        data.assign(static_cast<std::size_t>(l) * static_cast<std::size_t>(h) * static_cast<std::size_t>(q) *
                        static_cast<std::size_t>(k),
                    0.0f);
    }
};

struct AttentionSnapshot {
    std::string modelName;
    std::vector<Token> srcTokens;         ///< empty for decoder-only models
    std::vector<Token> tgtTokens;         ///< the decoder's input: <bos> and the tokens decoded so far
    AttentionBlock encoder;               ///< [L][H][S][S]
    AttentionBlock decoder;               ///< [L][H][T][T], masked: the upper triangle is 0
    AttentionBlock cross;                 ///< [L][H][T][S]
    std::vector<float> nextTokenLogProbs; ///< log-probabilities of the token after the last target token
    double encodeMs = 0.0;                ///< wall time of the encoder pass that produced this
    double decodeMs = 0.0;                ///< wall time of the decoder pass (or step) that produced this

    const AttentionBlock& block(AttentionKind kind) const {
        return kind == AttentionKind::Encoder ? encoder : kind == AttentionKind::Decoder ? decoder : cross;
    }
};

} // namespace core
