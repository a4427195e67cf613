// `attnscope bench-train`: training throughput of this implementation on a recipe's batches, and those
// batches written out, so scripts/bench-train-vs-seed.sh can time the seed's PyTorch code on the same data.

#include "app/Args.h"
#include "app/Commands.h"
#include "app/RunCommand.h"

#include "core/base/BlasCore.h"
#include "core/base/Files.h"
#include "core/base/Runtime.h"
#include "core/train/Trainer.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>

namespace {

const char* kHelp =
    R"(usage: attnscope bench-train --recipe FILE.json [--steps N] [--warmup W] [--batches FILE]

Trains W + N steps of the recipe (into a temporary directory), times the last N and prints the target
tokens per second. --batches writes the batches of all W + N steps (little-endian int64: the count, then
per batch rows, src_len, tgt_len, src, input, labels) for another implementation to train on.
)";

void put(std::string& out, int64_t v) {
    for (int i = 0; i < 8; ++i)
        out += static_cast<char>((static_cast<uint64_t>(v) >> (8 * i)) & 0xFF);
}

} // namespace

int runBenchTrain(const std::vector<std::string>& args) {
    return runCommand(
        "bench-train", kHelp, {{"--recipe", "--steps", "--warmup", "--batches"}, {}}, args,
        [&](const Args& a) {
            if (!a.has("--recipe"))
                throw UsageError("--recipe FILE is required");
            const auto steps = a.getInt("--steps", 100);
            const auto warmup = a.getInt("--warmup", 5);
            if (steps < 1 || warmup < 0)
                throw UsageError("--steps must be at least 1 and --warmup at least 0");
            auto recipe = core::TrainRecipe::fromFile(a.get("--recipe"));
            recipe.steps = steps + warmup;
            const auto dir = std::filesystem::temp_directory_path() /
                             ("attnscope-bench-" +
                              std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
            core::Trainer trainer(recipe, dir.string());
            if (a.has("--batches")) {
                std::string out;
                put(out, recipe.steps);
                for (int64_t s = 0; s < recipe.steps; ++s) {
                    const auto b = trainer.batchIds(s);
                    put(out, b.rows);
                    put(out, b.srcLen);
                    put(out, b.tgtLen);
                    for (const auto* v : {&b.src, &b.input, &b.labels})
                        for (auto x : *v)
                            put(out, x);
                }
                core::writeFileAtomically(a.get("--batches"), out);
            }
            for (int64_t s = 0; s < warmup; ++s)
                trainer.trainStep();
            int64_t tokens = 0;
            for (int64_t s = warmup; s < recipe.steps; ++s)
                tokens += trainer.batchIds(s).tokens;
            const auto t0 = std::chrono::steady_clock::now();
            for (int64_t s = warmup; s < recipe.steps; ++s)
                trainer.trainStep();
            const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            std::filesystem::remove_all(dir);
            const auto blas = core::blasCoreName();
            std::printf(
                "ours: %lld steps, %lld target tokens in %.3f s: %.0f tokens/s (%d threads, OpenBLAS %s)\n",
                static_cast<long long>(steps), static_cast<long long>(tokens), secs,
                static_cast<double>(tokens) / secs, core::threadCount(),
                blas.empty() ? "not in use" : blas.c_str());
            return 0;
        });
}
