// Fuzz target: vocab.json (core::Vocabulary::fromJson and Vocabulary::parseTokenIds) on any bytes.
//
// Both readers must accept a table of unique ids 0..n-1 or refuse it with a FormatError; an accepted
// vocabulary must map every token to its id and back, and write itself out as a file that reads back as
// the same table. The seeds: a real vocabulary, ids out of order, gaps, duplicate ids, duplicate keys,
// 1e400 and negative ids, ids past int64, deep nesting, non-object JSON, escaped and invalid UTF-8.
//
//   build-fuzz/tests/fuzz/fuzz_vocab tests/fuzz/corpus/fuzz_vocab   (scripts/fuzz.sh runs it)

#include "core/base/Errors.h"
#include "core/text/Vocabulary.h"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        const auto ids = core::Vocabulary::parseTokenIds(text, "vocab.json");
        (void)ids;
    } catch (const core::FormatError&) {
    }
    try {
        const auto vocab = core::Vocabulary::fromJson(text);
        for (int64_t id = 0; id < vocab.size(); ++id)
            if (vocab.find(vocab.token(id)) != id)
                std::abort();
        const auto back = core::Vocabulary::fromJson(vocab.toJson(), "round trip");
        if (back.size() != vocab.size() || back.unk() != vocab.unk() || back.pad() != vocab.pad())
            std::abort();
        for (int64_t id = 0; id < vocab.size(); ++id)
            if (back.token(id) != vocab.token(id))
                std::abort();
    } catch (const core::FormatError&) {
    }
    return 0;
}
