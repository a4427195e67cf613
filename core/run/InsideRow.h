#pragma once
// The computation behind one row of attention weights: Attention(Q, K, V) = softmax(QKᵀ / √d_k) V for one
// head and one query, and the heads' outputs through W_O into the residual stream. Plain data, no torch
// types: what the Inside view draws and `attnscope explain` writes.

#include "core/base/Matrix.h"
#include "core/run/AttentionSnapshot.h"
#include "core/text/Token.h"

#include <string>
#include <vector>

namespace core {

/// Which row to open: a kind, layer, head and query row of the current state.
struct InsideQuery {
    AttentionKind kind = AttentionKind::Decoder;
    int layer = 0;
    int head = 0;
    int row = 0;
};

/// Every stage for one query row i of one head, C = d_model, d_k = head size, Tq query tokens, Tk keys.
struct InsideRow {
    InsideQuery query;
    int heads = 0;
    int dModel = 0;
    int headSize = 0; ///< d_k
    /// Key/value heads: fewer than heads with grouped-query attention, where heads / kvHeads consecutive
    /// query heads read the same keys and values (k and v below are then those of kvHead()).
    int kvHeads = 0;
    bool grouped() const { return kvHeads > 0 && kvHeads < heads; }
    int kvHead() const { return grouped() ? query.head / (heads / kvHeads) : query.head; }
    bool qkvBias = true; ///< the q, k, v projections add a bias (the Llama family's do not)
    bool outBias = true; ///< W_O adds a bias
    bool rotary = false; ///< queries and keys are rotated by their positions (RoPE) after projection
    /// The sublayer normalises after the residual sum (BERT, Marian): x is the residual row itself, and
    /// output is norm(residual + attnOut).
    bool postNorm = false;
    /// One of the seed's recurrent models: x (the decoder's hidden state; empty for a classifier) and q have
    /// the one row of this query, the scores are sums of elementwise terms (products) plus shift, unscaled
    /// and unmasked, the values are plain states, and nothing follows z (no W_O, no residual: concat,
    /// attnOut, residual and output are empty).
    bool recurrent = false;
    /// The row of x and q that belongs to this query.
    int queryIndex() const { return recurrent ? 0 : query.row; }
    std::vector<Token> queryTokens; ///< Tq labels of the rows of x and Q
    std::vector<Token> keyTokens;   ///< Tk labels of the rows of K and V

    Matrix x; ///< Tq × C: the queries' side after the sublayer's norm (before it, when postNorm), exactly
              ///< what is projected
    Matrix memory;   ///< Tk × C, cross-attention only: the encoder output keys and values come from
    Matrix q;        ///< Tq × d_k: x W_Q + b_Q, this head's slice (rotated with RoPE)
    Matrix k;        ///< Tk × d_k: this head's keys (the decoder's cached ones)
    Matrix v;        ///< Tk × d_k: this head's values (the decoder's cached ones)
    Matrix products; ///< Tk × d_k: q_i ⊙ k_j, whose row sums are the raw scores
    std::vector<float> scores; ///< Tk: q_i · k_j (+ shift)
    /// Added to every score of the row: a recurrent model's score bias (and, for the seed's concatenating
    /// score, what the decoder's state contributes). Softmax is blind to it.
    float shift = 0.0f;
    float scale = 1.0f;          ///< 1 / √d_k
    std::vector<float> scaled;   ///< Tk: scores · scale
    std::vector<bool> visible;   ///< Tk: false where the mask blocks the key (causal or padding): −∞
    std::vector<float> weights;  ///< Tk: softmax over the row with the mask added, recomputed here
    std::vector<float> captured; ///< Tk: the weights the decode captured for this row: the heatmap's row
    Matrix weighted;             ///< Tk × d_k: weight_j · v_j
    std::vector<float> z;        ///< d_k: this head's output, Σ_j weight_j v_j
    std::vector<float> concat;   ///< C: every head's z_i side by side, the input of W_O (0 for a head off)
    /// H: heads switched off in this run, whose part of concat is zero (z above is what the head computed);
    /// empty for a recurrent model.
    std::vector<bool> headsOff;
    std::vector<float> attnOut;  ///< C: concat W_O + b_O
    std::vector<float> residual; ///< C: the residual row i entering the sublayer (before its norm)
    std::vector<float> output;   ///< C: residual + attnOut (normed when postNorm), what the sublayer hands on
};

} // namespace core
