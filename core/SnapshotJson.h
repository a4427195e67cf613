#pragma once
// The dump format: one JSON document per snapshot, shared by `attnscope dump` and the GUI's export.

#include "core/AttentionSnapshot.h"

#include <ostream>
#include <string>

namespace core {

/// {"model", "src_text", "src_tokens", "tgt_text", "tgt_tokens", "attention": {"encoder", "decoder",
/// "cross"},
///  "next_token_logprobs"}; floats with 9 significant digits (exact for float32); absent kinds are left out.
void writeSnapshotJson(std::ostream& out, const AttentionSnapshot& snap, const std::string& srcText,
                       const std::string& tgtText);

} // namespace core
