#pragma once
// The torch side of an InsideRow: one attention block's computation redone for one head and one query,
// from the state a decode left behind (or a whole pass recorded). Only core's sources include this (it
// carries torch types): run/'s Inside view, and analysis/'s attribution, which reads every head's output from
// it.
//
// Shapes: Tq queries, Tk keys, C channels, H heads, hs head size.

#include "core/model/nn/LayerNorm.h"
#include "core/model/nn/MultiHeadAttention.h"
#include "core/run/InsideRow.h"

#include <torch/types.h>

#include <cstdint>
#include <vector>

namespace core {

/// What one attention sublayer saw: its modules, the residual rows entering it, and its keys and values.
struct InsideInputs {
    nn::MultiHeadAttentionImpl* attention = nullptr;
    nn::LayerNormImpl* norm = nullptr; ///< the sublayer's norm, applied to `residual`
    bool postNorm = false;  ///< the norm comes after the sum (BERT, Marian): x is the residual itself
    torch::Tensor residual; ///< (Tq, C), rows entering the sublayer, query i at position i
    /// (H, Tk, hs) keys and values as the decode cached them; undefined for attention that caches nothing
    /// (the encoder, a whole pass), which then projects them from the normed residual (self-attention) or
    /// from memory (cross-attention).
    torch::Tensor keys, values;
    torch::Tensor memory;      ///< (Tk, C), cross-attention: the encoder output keys and values come from
    std::vector<bool> visible; ///< Tk, false for a padding key every query is kept from; empty: none
    bool causal = false;       ///< key j is hidden from query i when j > i
    /// H flags, nonzero for a head switched off (HeadAblation::layerMask): its z is zeroed before W_O, as the
    /// forward pass does. Empty: every head on.
    std::vector<std::uint8_t> off;
};

/// Recomputes stage by stage what the block did for query `row` of head `head` (both checked by the
/// caller): the same projections, scale, mask and softmax as the forward pass, in float32.
InsideRow computeInside(const InsideInputs& in, int head, int row);

} // namespace core
