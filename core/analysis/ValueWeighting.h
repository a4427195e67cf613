#pragma once
// analysis/ — what is computed from a run's attention: statistics, head scores, positional analysis,
// rollout and flow, ablation effects, metrics. analysis/ includes base/, text/, model/ and run/.
//
// Attention weighted by what it carries (Kobayashi et al., 2020): a head can put 0.9 on a token whose value
// vector is nearly zero, and then that weight moves almost nothing. α_ij·‖v_j W_O^(h)‖ is the size of what
// key j really hands to row i through the head; rows are renormalised so that it reads on the weights' scale.

#include "core/run/AttentionSnapshot.h"

namespace core {

/// α_ij·n_j / Σ_k α_ik·n_k for every row of `weights`, with n the keys' value norms of the same layers,
/// heads and keys (a row whose products are all 0 stays 0). Stored like `weights` (dense or compact, causal
/// or not). Empty when the shapes differ or either is empty.
AttentionBlock valueWeighted(const AttentionBlock& weights, const KeyNorms& norms);

/// Fills snap's weighted blocks (encoderWeighted, decoderWeighted, crossWeighted) for each kind it has both
/// weights and value norms of.
void addValueWeighted(AttentionSnapshot& snap);

} // namespace core
