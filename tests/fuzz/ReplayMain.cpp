// The driver of the replay_<target> tests: a fuzz target's LLVMFuzzerTestOneInput run on files, without
// libFuzzer, so the ordinary build and its compiler check every seed and every finding on every change.
//
//   replay_fuzz_config CORPUS_DIR [--if-present FINDINGS_DIR] [FILE...]
//
// Each folder's regular files are run in name order (hidden ones skipped), each from a buffer of exactly its
// size, as libFuzzer hands them over, so a sanitized build catches a read past the end. A target reports a
// problem by aborting (or by an exception escaping), which fails the test. A path that does not exist fails
// it too, except after --if-present: the findings folder of a target that has none yet. It prints what it
// ran and the slowest input, as the suite should stay fast.

#include "FuzzSections.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <stdlib.h>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace fs = std::filesystem;

int main(int argc, char** argv) {
    // A campaign skips model folders too large to load quickly (fuzz_modeldir); a replay loads every seed.
    ::setenv("ATTNSCOPE_FUZZ_HUGE", "1", 1);
    std::vector<fs::path> inputs;
    bool optional = false;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--if-present") {
            optional = true;
            continue;
        }
        std::error_code ec;
        if (fs::is_directory(arg, ec)) {
            std::vector<fs::path> files;
            for (const auto& entry : fs::directory_iterator(arg))
                if (entry.is_regular_file() && entry.path().filename().string()[0] != '.')
                    files.push_back(entry.path());
            std::sort(files.begin(), files.end());
            inputs.insert(inputs.end(), files.begin(), files.end());
        } else if (fs::is_regular_file(arg, ec)) {
            inputs.emplace_back(arg);
        } else if (!optional) {
            std::fprintf(stderr, "replay: no such file or folder: %s\n", arg.c_str());
            return 2;
        }
        optional = false;
    }
    if (inputs.empty()) {
        std::fprintf(stderr, "replay: no inputs\n");
        return 2;
    }
    double slowest = 0.0;
    std::string slowestName;
    for (const auto& path : inputs) {
        const auto bytes = fuzz::fileBytes(path);
        // Its own allocation of exactly its size, as libFuzzer gives it.
        const auto buffer = std::make_unique<uint8_t[]>(bytes.size());
        std::memcpy(buffer.get(), bytes.data(), bytes.size());
        std::printf("%s\n", path.string().c_str());
        std::fflush(stdout); // so the input that aborts is the last one named
        const auto start = std::chrono::steady_clock::now();
        LLVMFuzzerTestOneInput(buffer.get(), bytes.size());
        const double ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        if (ms > slowest) {
            slowest = ms;
            slowestName = path.filename().string();
        }
    }
    std::printf("replay: %zu inputs ran; the slowest, %s, took %.1f ms\n", inputs.size(), slowestName.c_str(),
                slowest);
    return 0;
}
