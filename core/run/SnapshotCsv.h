#pragma once
// Attention weights as CSV, for spreadsheets and plotting scripts: one head as a matrix, or every head of
// one kind in long form.

#include "core/run/AttentionSnapshot.h"

#include <ostream>

namespace core {

/// A header row `query,0:<key token>,1:<key token>…` then one row per query: `<index>:<token>`, then its
/// weights. head kMeanHead writes the mean over the layer's heads. Floats as the shortest text that reads
/// back exactly; the stream's locale is ignored.
void writeHeadCsv(std::ostream& out, const AttentionSnapshot& snap, AttentionKind kind, int layer, int head);
/// A header `layer,head,query_index,query_token,0:<key token>…` then one row per (layer, head, query).
void writeKindCsv(std::ostream& out, const AttentionSnapshot& snap, AttentionKind kind);

} // namespace core
