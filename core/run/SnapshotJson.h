#pragma once
// The dump format: one JSON document per snapshot, shared by `attnscope dump` and the GUI's export.

#include "core/run/AttentionSnapshot.h"

#include <ostream>
#include <string>

namespace core {

/// {"model", "src_text", "src_tokens", "tgt_text", "tgt_tokens", "attention": {"encoder", "decoder",
/// "cross"},
///  "next_token_logprobs"}; floats as the shortest text that reads back exactly,
/// whatever the locale; absent kinds are left out.
/// `extraFields`, when given, is written as more members of the top-level object (pre-formatted JSON
/// members without braces, e.g. `"selection": {...}`), so exports can say which head they hold.
void writeSnapshotJson(std::ostream& out, const AttentionSnapshot& snap, const std::string& srcText,
                       const std::string& tgtText, const std::string& extraFields = {});

} // namespace core
