#pragma once
// The Inside format: one JSON document for one opened row and the next token's sampling pipeline, shared
// by `attnscope explain` and the Inside view's export.

#include "core/run/InsideRow.h"
#include "core/run/Sampler.h"

#include <ostream>
#include <string>

namespace core {

/// {"model", "kind", "layer", "head", "row", "query_token", "query_tokens", "key_tokens", "d_model", "d_k",
///  "heads", "rotary", "scale", "x", ["memory",] "q", "k", "v", "products", "scores", "scaled", "mask",
///  "weights", "captured_weights", "weighted_values", "z", "concat", "attn_out", "residual", "output",
///  "sampling"} ("sampling" null for an encoder-only model, which decodes nothing: a pipeline over no
///  vocabulary).
/// Matrices are arrays of rows; "mask" is the additive mask of the row, per key: 0 where the key is
/// visible, null for −∞. Floats as the shortest text that reads back exactly, whatever the locale.
void writeInsideJson(std::ostream& out, const std::string& modelName, const InsideRow& row,
                     const SamplingPipeline& sampling);

} // namespace core
