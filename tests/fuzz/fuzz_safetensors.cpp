// Fuzz target: the safetensors reader (core/model/Safetensors.h) on any bytes.
//
// The input is a whole model.safetensors file: the 8-byte header length, the JSON header, the data. A file
// the reader accepts has every tensor converted to float32, so data offsets that survive the checks are
// read through; a file it refuses must be refused with core::FormatError. Anything else that escapes, and
// every ASan/UBSan report, is a finding. The categories the seeds start from: a header length past the
// end or over the 100 MB cap, huge shapes whose byte count overflows, 1e400 in a shape, deep nesting,
// duplicate names, truncated, overlapping and holed data offsets, every dtype.
//
//   build-fuzz/tests/fuzz/fuzz_safetensors tests/fuzz/corpus/fuzz_safetensors   (scripts/fuzz.sh runs it)

#include "core/base/Errors.h"
#include "core/model/Safetensors.h"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    try {
        const auto file = core::SafetensorsFile::fromBytes(
            std::string(reinterpret_cast<const char*>(data), size), "fuzz.safetensors");
        for (const auto& t : file.tensors()) {
            const auto values = file.toFloat32(t);
            // The reader checked that the offsets hold exactly numel elements; a mismatch means it did not.
            if (values.size() != static_cast<std::size_t>(t.numel()) || file.find(t.name) != &t)
                std::abort();
        }
    } catch (const core::FormatError&) {
    }
    return 0;
}
