#include "core/train/TrainingRun.h"

#include "core/base/Errors.h"
#include "core/train/CheckpointState.h"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <system_error>
#include <thread>

namespace core {

namespace fs = std::filesystem;

namespace {

// Fail before any training rather than at the first checkpoint.
void makeWritableDir(const std::string& dir) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec)
        throw IoError("cannot create " + dir + ": " + ec.message());
    if (access(dir.c_str(), W_OK) != 0)
        throw IoError("cannot write into " + dir + ": " +
                      std::error_code(errno, std::generic_category()).message());
}

} // namespace

TrainingRun::TrainingRun(std::unique_ptr<Trainer> trainer) : trainer_(std::move(trainer)) {}

bool TrainingRun::hasCheckpoint(const std::string& dir) {
    return CheckpointState::exists(dir);
}

std::unique_ptr<TrainingRun> TrainingRun::start(const TrainRecipe& recipe, const std::string& outDir) {
    if (hasCheckpoint(outDir))
        throw InputError(outDir +
                         " already holds a run (its checkpoint); continue that run, or start this one in "
                         "another folder");
    makeWritableDir(outDir);
    auto trainer = std::make_unique<Trainer>(recipe, outDir); // starts a fresh log.csv
    return std::unique_ptr<TrainingRun>(new TrainingRun(std::move(trainer)));
}

std::unique_ptr<TrainingRun> TrainingRun::resume(const std::string& outDir) {
    return std::unique_ptr<TrainingRun>(new TrainingRun(Trainer::resume(outDir)));
}

std::string TrainingRun::logPath() const {
    return (fs::path(trainer_->outDir()) / "log.csv").string();
}

RunEnd TrainingRun::run(const RunCallbacks& cb, const RunOptions& opt) {
    auto& t = *trainer_;
    const auto& recipe = t.recipe();
    const int64_t first = t.stats().step;
    int64_t lastLogged = -1;
    auto logRow = [&](double metric, bool last) {
        const auto heads = t.log(metric);
        lastLogged = t.stats().step;
        if (cb.onLogged)
            cb.onLogged({t.stats(), recipe.steps, metric, last, heads});
    };
    const bool probing = opt.probeEvery > 0 && cb.onProbe;
    if (probing)
        cb.onProbe(first); // the pattern before this run's steps, the first frame of the film

    while (!t.done()) {
        if (cb.stopRequested && cb.stopRequested())
            break;
        if (cb.pauseRequested && cb.pauseRequested()) {
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            continue;
        }
        const auto s = t.trainStep();
        if (cb.onStep)
            cb.onStep(s);
        if (t.done())
            break; // the final checkpoint, model, evaluation and row follow the loop
        if (s.step % recipe.evalEvery == 0)
            logRow(t.evaluate(recipe.evalExamples, Trainer::kEvalSeed), false);
        else if (opt.logEvery > 0 && s.step % opt.logEvery == 0)
            logRow(-1.0, false);
        if (probing && s.step % opt.probeEvery == 0)
            cb.onProbe(s.step);
        if (s.step % recipe.checkpointEvery == 0)
            t.saveCheckpoint();
    }

    if (!t.done()) {
        t.saveCheckpoint();
        if (lastLogged != t.stats().step && t.stats().step > first)
            logRow(-1.0, false);
        if (opt.exportOnStop)
            t.exportModel();
        return RunEnd::Stopped;
    }
    // Saved before the evaluation, so a failure there still leaves the finished run resumable.
    t.saveCheckpoint();
    t.exportModel();
    finalMetric_ = t.evaluate(recipe.evalExamples, Trainer::kEvalSeed);
    if (t.stats().step > first) // resuming a finished run adds no second row for its last step
        logRow(finalMetric_, true);
    else if (cb.onLogged)
        cb.onLogged({t.stats(), recipe.steps, finalMetric_, true, t.watchHeads()});
    if (probing)
        cb.onProbe(t.stats().step);
    return RunEnd::Completed;
}

} // namespace core
