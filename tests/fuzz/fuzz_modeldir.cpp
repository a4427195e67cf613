// Fuzz target: the model-directory reader as a whole (core::Model::load), on a directory built from the
// fuzzer's bytes, then one analysis of a short text with the model it loaded.
//
// The input is a small archive of the directory's entries, each opened by a line of its own:
//
//   === config.json          a regular file; its content runs up to the newline before the next "=== " line
//   === model.safetensors/   a directory under that name (a non-regular file where a file is expected)
//   === vocab.json -> other  a symbolic link (to a name in the same directory, present or not)
//
// (FuzzSections.h). Names are one path component of [A-Za-z0-9._-]; other entries are skipped, so the
// fuzzer never writes outside its scratch directory. A directory the reader refuses must be refused with a
// core::Error naming what is wrong; anything else that escapes, and every ASan/UBSan report, is a finding.
// The seeds are tiny complete models of each format (ours encoder-decoder with a char vocabulary,
// decoder-only with byte-level BPE, Hugging Face GPT-2), and copies with the probe's categories: a weight
// file that is a directory or a dangling link, a truncated weight file, overlapping offsets, 1e400 sizes in
// config.json.
//
// Two kinds of directory are skipped, each a known problem or a limit of the instrumented build:
// - configs asking for more than kMaxParameters weights: the reader builds the network before it looks at
//   model.safetensors, so a config.json asking for billions of weights runs out of memory before any
//   check (a known problem, being fixed on its own; set ATTNSCOPE_FUZZ_HUGE=1 to fuzz it anyway; the replay
//   tests load every seed);
// - SentencePiece tokenizers: the SentencePiece module is opened with RTLD_DEEPBIND, which ASan refuses.
// FIFOs and devices are not made for the same reason as the first: reading one blocks (known, being fixed).
// ATTNSCOPE_FUZZ_VERBOSE=1 prints why each directory was refused.
//
//   build-fuzz/tests/fuzz/fuzz_modeldir tests/fuzz/corpus/fuzz_modeldir   (scripts/fuzz.sh runs it)

#include "FuzzSections.h"

#include "core/base/Errors.h"
#include "core/base/JsonText.h"
#include "core/base/Runtime.h"
#include "core/model/Gpt2Checkpoint.h"
#include "core/model/Model.h"
#include "core/model/ModelDirectory.h"
#include "core/run/Session.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace fs = std::filesystem;

namespace {

constexpr double kMaxParameters = 1 << 20;

// The config as the reader will see it, when it parses; false when the directory should be skipped.
bool worthLoading(const fs::path& dir) {
    // The replay tests set ATTNSCOPE_FUZZ_HUGE: the corpus's seeds are loaded whatever they ask for.
    static const bool huge = std::getenv("ATTNSCOPE_FUZZ_HUGE") != nullptr;
    const auto path = dir / "config.json";
    if (fs::symlink_status(path).type() != fs::file_type::regular)
        return true; // missing, a directory or a link: the reader's own checks
    const auto text = fuzz::fileBytes(path);
    core::ModelConfig c;
    try {
        const auto json = core::parseJsonObject(text, "config.json");
        c = core::ModelDirectory::formatOf(json, "config.json") == core::ModelFormat::Gpt2
                ? core::gpt2ConfigFromParsed(json, "config.json")
                : core::ModelConfig::fromParsed(json, "config.json");
    } catch (const core::Error&) {
        return true; // the reader refuses it the same way
    }
    if (c.tokenizer == core::TokenizerKind::SentencePiece)
        return false;
    const double d = c.dModel, ff = c.dFf;
    const double params = (double(c.srcVocabSize) + 2.0 * c.tgtVocabSize + c.maxLen) * d +
                          double(c.encoderLayers) * (4 * d * d + 2 * d * ff) +
                          double(c.decoderLayers) * (8 * d * d + 2 * d * ff);
    return huge || params <= kMaxParameters;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const fs::path dir = fuzz::scratchFolder("fuzz-modeldir");
    static const bool verbose = std::getenv("ATTNSCOPE_FUZZ_VERBOSE") != nullptr;
    fuzz::clearFolder(dir);
    fuzz::buildFolder(fuzz::sections(std::string(reinterpret_cast<const char*>(data), size)), dir);
    if (!worthLoading(dir))
        return 0;
    try {
        const auto model = core::Model::load(dir.string(), core::DeviceChoice::Cpu);
        core::configureThreads(1); // loading asks for every core; the fuzzer runs on one
        core::Session session(model);
        session.analyze("ab");
        (void)session.snapshot();
    } catch (const core::Error& e) {
        if (verbose) // to see how far a seed gets: a new seed should load, or fail where it is meant to
            std::fprintf(stderr, "fuzz_modeldir: %s\n", e.what());
    }
    return 0;
}
