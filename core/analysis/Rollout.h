#pragma once
// Attention rollout and attention flow (Abnar & Zuidema, 2020): one layer's map says little about what the
// output depends on, because every layer mixes what the layers below already mixed. Both methods treat the
// model as a layered graph: a node per token per layer, and from each node an edge to every token it
// attends to in the layer below, weighted by the layer's attention averaged over its heads, with the
// residual connection as an edge to the token itself: Ā = (A + I), rows renormalised (each row sums to 1,
// half of it on the token itself when A's row sums to 1).
//
// Rollout multiplies those matrices through the layers, R = Ā_L ⋯ Ā_1: how much of each input token reaches
// each output position, if mixing were linear. Flow takes the same graph as a flow network whose edge
// capacities are those weights, and gives for each output and input the maximum flow between them.
//
// An encoder–decoder composes three kinds. The encoder's rollout R_enc (S × S) says how its outputs
// depend on the source tokens. Each decoder position then carries a distribution over the target inputs and
// the source inputs, [D_tt | D_ts], starting at [I | 0]. A decoder layer's self-attention mixes the
// positions: [D_tt | D_ts] ← Ā_self [D_tt | D_ts]. Its cross-attention adds, to each position's residual
// stream, a mixture C (the heads' mean, T × S) of the encoder's outputs, whose own dependence on the source
// is C R_enc; with the residual counted as half, as the self-attention's is: D_tt ← ½ D_tt and D_ts ← ½ D_ts
// + ½ C R_enc. Rows still sum to 1. Cross rollout is D_ts (how much each target position's final state comes
// from each source token), decoder rollout D_tt; each is shown with its rows renormalised, and `share`
// keeps each row's total before that (the source's share of the position's state, for cross). The flow
// network of an encoder–decoder is the same composition as a graph: the encoder's layers, then per decoder
// layer a node per position after self-attention and one after cross-attention, with an edge of ½ from the
// first to the second and of ½·C[t][s] from each of the encoder's outputs.

#include "core/base/Matrix.h"
#include "core/run/AttentionSnapshot.h"

#include <vector>

namespace core {

/// Outputs × inputs of one kind: rows the kind's queries (the last layer's positions), columns its keys
/// (the input tokens: the source for Encoder and Cross, the target for Decoder).
struct Rollout {
    AttentionKind kind = AttentionKind::Encoder;
    bool flow = false; ///< attention flow (max-flow values) rather than rollout
    /// Rollout: each row renormalised to sum to 1 over the columns' side. Flow: the maximum flow from each
    /// input to each output, each at most 1, not renormalised.
    Matrix weights;
    /// Rollout: each row's total over the columns' side before renormalising. For an encoder–decoder's
    /// Cross it is 1 − 2^−L and for its Decoder 2^−L (L decoder layers) whatever the weights: counting the
    /// residual as half sets the split between the two sides, and the renormalised rows are what the weights
    /// say. 1 for the other compositions. Flow: 1.
    std::vector<float> share;
};

/// The layered graph rollout and flow both read, as plain matrices: each self-attention layer's Ā (the heads'
/// mean plus the residual, rows renormalised) and each cross-attention layer's heads' mean C, of the kinds
/// `kind` composes (Encoder: the encoder's; Decoder of a decoder-only model: its own; Decoder and Cross of an
/// encoder–decoder: all three). Throws as attentionRollout.
struct AttentionGraph {
    std::vector<Matrix> encoder; ///< [layer] S × S
    std::vector<Matrix> decoder; ///< [layer] T × T
    std::vector<Matrix> cross;   ///< [layer] T × S
};
AttentionGraph attentionGraph(const AttentionSnapshot& snap, AttentionKind kind);

/// Attention rollout of one kind of a snapshot (see above). Throws InputError for a kind the snapshot does
/// not hold (or that needs one it does not hold: Cross needs the encoder's and the decoder's), for Pooling
/// and for a recurrent model's one-layer attention.
Rollout attentionRollout(const AttentionSnapshot& snap, AttentionKind kind);

} // namespace core
