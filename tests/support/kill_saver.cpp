// A child for test_killsave: saves the same thing over and over until it is killed, announcing each save on
// stdout ("saving N" before, "saved N" after, flushed), so the test knows whether its SIGKILL landed inside
// one.
//
//   kill_saver checkpoint RUN_DIR RECIPE.json   trains a step, saves a checkpoint, again
//   kill_saver convert MODEL_DIR OUT_DIR         saves the model to OUT_DIR in F16, then F32, again

#include "core/base/Files.h"
#include "core/model/Model.h"
#include "core/train/TrainRecipe.h"
#include "core/train/Trainer.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>

namespace {

void say(const char* what, long n, long micros = -1) {
    if (micros >= 0)
        std::printf("%s %ld %ld\n", what, n, micros);
    else
        std::printf("%s %ld\n", what, n);
    std::fflush(stdout);
}

// How long f takes, in microseconds.
template <typename F> long timed(F&& f) {
    const auto start = std::chrono::steady_clock::now();
    f();
    return static_cast<long>(
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start)
            .count());
}

} // namespace

int main(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(stderr,
                     "usage: kill_saver checkpoint RUN_DIR RECIPE.json | convert MODEL_DIR OUT_DIR\n");
        return 2;
    }
    const std::string mode = argv[1];
    if (mode == "checkpoint") {
        const std::string run = argv[2];
        auto trainer = std::filesystem::exists(run + "/checkpoint/state.json")
                           ? core::Trainer::resume(run)
                           : std::make_unique<core::Trainer>(core::TrainRecipe::fromFile(argv[3]), run);
        // A first step and save untimed: the first of each allocates what the later ones reuse, and the
        // checkpoint it leaves is the previous one that every later kill must leave whole.
        trainer->trainStep();
        trainer->log();
        const long micros = timed([&] { trainer->saveCheckpoint(); });
        say("ready", trainer->stats().step, micros); // the test aims its kills by how long a save takes
        for (;;) {
            trainer->trainStep();
            trainer->log();
            say("saving", trainer->stats().step);
            trainer->saveCheckpoint();
            say("saved", trainer->stats().step);
        }
    }
    if (mode == "convert") {
        const auto model = core::Model::load(argv[2], core::DeviceChoice::Cpu);
        const long micros = timed([&] { model->save(argv[3], core::DType::F32); });
        say("ready", 0, micros);
        for (long n = 1;; ++n) {
            say("saving", n);
            model->save(argv[3], n % 2 ? core::DType::F16 : core::DType::F32);
            say("saved", n);
        }
    }
    std::fprintf(stderr, "kill_saver: unknown mode '%s'\n", mode.c_str());
    return 2;
}
