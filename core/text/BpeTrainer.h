#pragma once
// Learns a byte-level BPE vocabulary from text, as GPT-2's was learned: text is split into GPT-2's pieces,
// every piece starts as its bytes, and the most frequent neighbouring pair (counted over all pieces,
// weighted by how often each piece occurs) becomes one symbol, again and again.

#include "core/text/ByteLevelBpe.h"

#include <cstdint>
#include <string>
#include <vector>

namespace core {

struct BpeTrainOptions {
    int vocabSize = 4096; // tokens in all: the 4 specials, the 256 bytes, then one per merge
    int minCount = 2;     // a pair seen fewer times than this is never merged
};

/// The vocabulary is <pad> <bos> <eos> <unk> (ids 0–3), the 256 bytes in byte order, then each merge's
/// token in the order learned. Ties between equally frequent pairs go to the pair whose byte strings sort
/// first, so the result is a function of the text alone. Throws InputError when vocabSize is below 260.
ByteLevelBpe trainByteLevelBpe(const std::vector<std::string>& documents, const BpeTrainOptions& options);

} // namespace core
