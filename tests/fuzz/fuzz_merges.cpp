// Fuzz target: GPT-2's merges.txt (core::ByteLevelBpe::fromText) on any bytes, then encoding with it.
//
// The vocabulary is the built-in tiny-lm's, cut to 320 tokens (all 256 bytes and the tokens of its first
// 60 merges); the input is the merges file. A file the reader refuses must be refused with a FormatError
// naming the file; a file it accepts gives a tokenizer, which then encodes the input itself: byte-level BPE
// knows every byte, so decoding the ids must give the input back. The seeds: pieces of tiny-lm's own
// merges.txt, with and without the version line, CRLF, blank lines, a third token, characters outside
// GPT-2's byte alphabet, a merge whose token the vocabulary lacks, a long repeated merge.
//
//   build-fuzz/tests/fuzz/fuzz_merges tests/fuzz/corpus/fuzz_merges   (scripts/fuzz.sh runs it)

#include "core/base/Errors.h"
#include "core/base/Files.h"
#include "core/text/ByteLevelBpe.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdlib>
#include <string>

namespace {

// tiny-lm's vocabulary cut to its specials, the 256 bytes and the tokens of its first 60 merges (ids follow
// the merges): the vocabulary is parsed on every run, and all 4,096 tokens would make that 13 times slower.
std::string smallVocabulary() {
    const auto full =
        nlohmann::json::parse(core::readFile(ATTNSCOPE_SOURCE_DIR "/resources/models/tiny-lm/vocab.json"));
    nlohmann::json cut = nlohmann::json::object();
    for (const auto& [token, id] : full.items())
        if (id.get<int>() < 320)
            cut[token] = id;
    return cut.dump();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const std::string vocab = smallVocabulary();
    const std::string merges(reinterpret_cast<const char*>(data), size);
    try {
        const auto bpe = core::ByteLevelBpe::fromText(vocab, merges);
        const auto ids = bpe.encode(merges);
        for (const auto id : ids)
            if (id < 0) // a merge made a token the vocabulary lacks; fromText refuses such files
                std::abort();
        if (bpe.decode(ids) != merges)
            std::abort();
    } catch (const core::FormatError&) {
    }
    return 0;
}
