#pragma once
// One teacher-forced pass over a whole input, every attention captured: what `dump`, the head analysis,
// the Train tab's probe and the bench run. A Session runs decoding step by step instead.

#include "core/model/Model.h"
#include "core/run/AttentionSnapshot.h"

#include <cstdint>
#include <vector>

namespace core {

/// Teacher-forced pass over src (ignored for decoder-only) and tgt (ignored for encoder-only, whose answer is
/// its masked-LM head's at the first mask: see AttentionSnapshot::maskRow), every attention captured when
/// `capture` is set. Throws InputError for empty or too long inputs and ids outside the vocabulary.
AttentionSnapshot analyze(const Model& model, const std::vector<int64_t>& src,
                          const std::vector<int64_t>& tgt, bool capture = true);

} // namespace core
