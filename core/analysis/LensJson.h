#pragma once
// The logit lens and direct logit attribution as JSON, in the schema `attnscope lens` and `attnscope
// attribute` print and the window's exports write: one writer for both, so a script reads either the same.

#include "core/analysis/Attribution.h"
#include "core/analysis/LogitLens.h"
#include "core/text/Vocabulary.h"

#include <ostream>
#include <string>

namespace core {

/// {"model", "points", "positions", "tokens", "chosen", "logprob", "rank", "entropy", "top", "post_norm",
/// "reads", "ms"}: see `attnscope lens --help`.
void writeLensJson(std::ostream& out, const std::string& model, const LogitLens& lens);
/// {"model", "position", "token", "token_text", "versus", "logit", "sum", "post_norm", "reads",
/// "components", "split_gap", "ms"}: see `attnscope attribute --help`. `vocab` names the token read.
void writeAttributionJson(std::ostream& out, const std::string& model, const Attribution& a,
                          const Vocabulary& vocab);

} // namespace core
