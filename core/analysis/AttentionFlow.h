#pragma once
// Attention flow (Abnar & Zuidema, 2020): the layered attention graph of Rollout.h as a flow network, its
// edge capacities the residual-augmented weights; for each output and input, the maximum flow between them.
// Unlike rollout's products, a flow cannot pass an edge's capacity twice, so it follows the widest paths
// rather than summing every path.

#include "core/analysis/Rollout.h"

#include <functional>
#include <optional>

namespace core {

/// The largest side attention flow is computed for: a max-flow per output and input, each over the whole
/// layered graph.
inline constexpr int kFlowMaxTokens = 64;

/// Called after each output row with the rows done and the rows in all; false stops the work.
using FlowProgress = std::function<bool(int done, int total)>;

/// Attention flow of one kind (see Rollout.h for the composition of an encoder–decoder); nothing when
/// `progress` stopped it. Throws as attentionRollout, and InputError when a side has more than
/// kFlowMaxTokens tokens.
std::optional<Rollout> attentionFlow(const AttentionSnapshot& snap, AttentionKind kind,
                                     const FlowProgress& progress = {});

} // namespace core
