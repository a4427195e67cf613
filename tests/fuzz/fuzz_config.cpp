// Fuzz target: config.json (core::ModelConfig::fromJson) on any bytes.
//
// A config the parser accepts must pass validate() and survive a round trip through toJson(): what we
// write we must read back as the same model. A config it refuses must be refused with a ConfigError or a
// FormatError naming the file. The seeds cover our format (encoder-decoder, decoder-only, each tokenizer
// kind) and the probe's categories: 1e400 and -1e400 as sizes, sizes past int's range, deep nesting,
// duplicate keys, unknown fields, wrong types.
//
//   build-fuzz/tests/fuzz/fuzz_config tests/fuzz/corpus/fuzz_config   (scripts/fuzz.sh runs it)

#include "core/base/Errors.h"
#include "core/model/ModelConfig.h"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    core::ModelConfig config;
    try {
        config = core::ModelConfig::fromJson(std::string(reinterpret_cast<const char*>(data), size));
    } catch (const core::ConfigError&) {
        return 0;
    } catch (const core::FormatError&) {
        return 0;
    }
    // Accepted: it must stay accepted, and the same, once written and read back.
    config.validate();
    const auto text = config.toJson();
    if (core::ModelConfig::fromJson(text, "round trip").toJson() != text)
        std::abort();
    return 0;
}
