#pragma once
// Attention weights as CSV, for spreadsheets and plotting scripts: one head as a matrix, or every head of
// one kind in long form.

#include "core/AttentionSnapshot.h"

#include <ostream>

namespace core {

/// A header row `query,<key tokens…>` then one row per query: its token, then its weights. head −1 writes
/// the mean over the layer's heads. Floats with 9 significant digits (exact for float32).
void writeHeadCsv(std::ostream& out, const AttentionSnapshot& snap, AttentionKind kind, int layer, int head);
/// A header `layer,head,query_index,query_token,<key tokens…>` then one row per (layer, head, query).
void writeKindCsv(std::ostream& out, const AttentionSnapshot& snap, AttentionKind kind);

/// The tokens that label the queries (rows) and keys (columns) of a kind.
const std::vector<Token>& queryTokens(const AttentionSnapshot& snap, AttentionKind kind);
const std::vector<Token>& keyTokens(const AttentionSnapshot& snap, AttentionKind kind);

} // namespace core
