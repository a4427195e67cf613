#include "app/Args.h"
#include "app/Commands.h"
#include "app/ProgressLine.h"
#include "app/RunCommand.h"

#include "core/base/Errors.h"
#include "core/train/TrainRecipe.h"
#include "core/train/Trainer.h"
#include "core/train/TrainingRun.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>

namespace {

const char* kTrainHelp = R"(usage: attnscope train --recipe FILE.json [--out DIR] [--steps N]
       attnscope train --resume --out DIR [--recipe FILE.json] [--steps N]

Trains a model on the recipe's task (copy, reverse, sort, addition, induction, translation,
language_model, classification) and
writes into DIR:
  checkpoint/   the latest checkpoint, replaced whole: a model directory (config.json, model.safetensors,
                the vocabulary) plus optimizer.safetensors (Adam's moments) and state.json
  model/        the final model, an ordinary model directory for the window and `dump`
  log.csv       step,loss,lr,tokens_per_s,elapsed_s,accuracy,induction,previous_token
  recipe.json   the recipe as run (with --steps applied), which --resume checks against
  bpe/          a language model's BPE vocabulary, learned from its corpus

  --recipe FILE   the run: task, model sizes, batch, steps, schedule, seed (the built-in models' recipes
                  are in share/attnscope/recipes beside the program, and in resources/recipes)
  --out DIR       where to write (default runs/<recipe name>); refused if it already holds a run
  --resume        continue the run in DIR from its checkpoint, exactly; --recipe, if given, must match
                  the saved recipe except for "steps"
  --steps N       train to step N instead of the recipe's "steps" (stored with the run; with --resume
                  it extends a finished run)
Ctrl-C saves a checkpoint and stops; continue with --resume. The accuracy column of log.csv is exact match
of greedy decoding on fresh examples for the generated tasks, chrF for translation, and held-out
perplexity for a language model (whose run also keeps the BPE vocabulary learned from its corpus in bpe/).
For the induction task every row also holds the best head's induction and previous-token scores (the
head analysis of `attnscope heads`), and the run ends saying at which step an induction head formed.
Exit status: 0 done, 2 bad arguments or input, 130 after Ctrl-C (143 after SIGTERM) with the checkpoint saved, 1 for an unexpected internal error.
)";

volatile std::sig_atomic_t gStopSignal = 0;

extern "C" void onStopSignal(int sig) {
    gStopSignal = sig;
}

// The handler stays installed until the command returns, so a second Ctrl-C while the checkpoint is
// being written only sets the flag again instead of killing the process half-way.
class StopSignals {
public:
    StopSignals() {
        struct sigaction sa {};
        sa.sa_handler = onStopSignal;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, &sa, &oldInt_);
        sigaction(SIGTERM, &sa, &oldTerm_);
    }
    ~StopSignals() {
        sigaction(SIGINT, &oldInt_, nullptr);
        sigaction(SIGTERM, &oldTerm_, nullptr);
    }
    StopSignals(const StopSignals&) = delete;
    StopSignals& operator=(const StopSignals&) = delete;

private:
    struct sigaction oldInt_ {};
    struct sigaction oldTerm_ {};
};

std::string clockTime(double seconds) {
    const auto s = static_cast<long long>(seconds + 0.5);
    char buf[32];
    if (s >= 3600)
        std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", s / 3600, s / 60 % 60, s % 60);
    else
        std::snprintf(buf, sizeof buf, "%lld:%02lld", s / 60, s % 60);
    return buf;
}

std::string fixed(double v, int decimals) {
    std::ostringstream o;
    o << std::fixed << std::setprecision(decimals) << v;
    return o.str();
}

std::string percent(double accuracy) {
    return fixed(100.0 * accuracy, 1) + "%";
}

/// The training's progress line (ProgressLine draws it).
class Progress {
public:
    explicit Progress(int64_t total) : total_(total) {}
    bool tty() const { return out_.tty(); }

    std::string line(const core::TrainStats& s, int64_t sessionSteps, double sessionSeconds) const {
        std::ostringstream o;
        const auto width = std::to_string(total_).size();
        auto step = std::to_string(s.step);
        step.insert(0, width > step.size() ? width - step.size() : 0, ' ');
        o << "step " << step << "/" << total_ << "  loss " << fixed(s.loss, 4) << "  "
          << fixed(s.tokensPerSecond, 0) << " tok/s"
          << "  elapsed " << clockTime(s.elapsedSeconds) << "  ETA ";
        if (sessionSteps > 0)
            o << clockTime(sessionSeconds / static_cast<double>(sessionSteps) *
                           static_cast<double>(total_ - s.step));
        else
            o << "?";
        o << "  lr " << std::scientific << std::setprecision(2) << s.lr;
        return o.str();
    }

    /// keep: the line stays on screen (an evaluation, the last line) rather than being overwritten.
    void show(const std::string& text, bool keep) { out_.show(text, keep); }

private:
    ProgressLine out_;
    int64_t total_;
};

/// The fields (besides steps) in which two recipes differ, as "model.d_model, seed".
std::string recipeDifferences(const core::TrainRecipe& a, const core::TrainRecipe& b) {
    auto ja = nlohmann::json::parse(a.toJson());
    auto jb = nlohmann::json::parse(b.toJson());
    ja.erase("steps");
    jb.erase("steps");
    std::string fields;
    auto add = [&](const std::string& f) { fields += (fields.empty() ? "" : ", ") + f; };
    for (const auto& [key, v] : ja.items()) {
        if (key == "model" && v.is_object() && jb[key].is_object()) {
            for (const auto& [mk, mv] : v.items())
                if (!jb[key].contains(mk) || jb[key][mk] != mv)
                    add("model." + mk);
        } else if (!jb.contains(key) || jb[key] != v) {
            add(key);
        }
    }
    return fields;
}

// A resumed run checks --recipe and --steps against the saved one; a new run refuses a folder that holds one.
std::unique_ptr<core::TrainingRun> openRun(const Args& a, bool resume, long long steps,
                                           const core::TrainRecipe* given, const std::string& out) {
    std::unique_ptr<core::TrainingRun> run;
    if (resume) {
        run = core::TrainingRun::resume(out);
        auto& trainer = run->trainer();
        if (given) {
            const auto diff = recipeDifferences(*given, trainer.recipe());
            if (!diff.empty())
                throw UsageError(a.get("--recipe") + " differs from the recipe of the run in " + out + " (" +
                                 diff + "); resume without --recipe, or train into another --out");
        }
        const auto done = trainer.stats().step;
        if (steps > 0 && steps < done)
            throw UsageError("the run in " + out + " is already at step " + std::to_string(done) +
                             "; --steps must be at least that");
        if (steps > 0)
            trainer.setSteps(steps); // saved with the next checkpoint, so a later resume ends there too
    } else {
        auto recipe = *given;
        if (steps > 0)
            recipe.steps = steps; // stored with the checkpoint, so a resume trains to the same end
        if (core::TrainingRun::hasCheckpoint(out))
            throw UsageError(out + " already holds a run; continue it with --resume or choose another --out");
        run = core::TrainingRun::start(recipe, out);
    }
    return run;
}

// One line on stderr before the first step, so a log shows what ran where.
void printStart(bool resume, const core::Trainer& trainer, const std::string& out) {
    const auto& recipe = trainer.recipe();
    const int64_t total = recipe.steps;
    const auto config = recipe.modelConfig();
    std::cerr << (resume ? "resuming " : "training ") << recipe.name << ": "
              << core::Task::toString(recipe.task);
    if (recipe.makeTask().generated())
        std::cerr << " " << recipe.minLen << "–" << recipe.maxLen;
    std::cerr << ", " << config.shape() << ", batch " << recipe.batchSize << "; step " << trainer.stats().step
              << " of " << total << " → " << out << "\n";
}

// The result goes to stdout (the progress line is on stderr), for a script to read.
void printResult(const std::string& scoreText, const std::string& metric, const core::TrainRecipe& recipe,
                 const core::HeadWatch& heads, const core::TrainingRun& run, const std::string& out) {
    std::cout << scoreText << " on " << recipe.evalExamples
              << (metric == "chrF"         ? " held-out pairs\n"
                  : metric == "perplexity" ? " held-out windows\n"
                                           : " fresh examples\n")
              << "model: " << (std::filesystem::path(out) / "model").string() << "\n";
    if (heads.measured()) {
        const auto formed = core::TrainLog::formedAt(core::TrainLog::read(run.logPath()));
        std::cout << "best heads: induction " << fixed(heads.induction, 3) << ", previous token "
                  << fixed(heads.previous, 3) << "; induction score >= 0.5 first logged at "
                  << (formed < 0 ? std::string("no step") : "step " + std::to_string(formed)) << "\n";
    }
}

} // namespace

int runTrain(const std::vector<std::string>& argv) {
    return runCommand(
        "train", kTrainHelp, {{"--recipe", "--out", "--steps"}, {"--resume"}}, argv, [&](const Args& a) {
            const bool resume = a.has("--resume");
            if (!resume && !a.has("--recipe"))
                throw UsageError("--recipe FILE.json is required (or --resume --out DIR)");
            if (resume && !a.has("--out") && !a.has("--recipe"))
                throw UsageError("--resume needs --out DIR (or --recipe, for runs/<recipe name>)");
            const auto steps = a.getInt("--steps", 0);
            if (a.has("--steps") && steps < 1)
                throw UsageError("--steps expects N >= 1");

            std::unique_ptr<core::TrainRecipe> given;
            if (a.has("--recipe"))
                given = std::make_unique<core::TrainRecipe>(core::TrainRecipe::fromFile(a.get("--recipe")));
            const auto out = a.has("--out") ? a.get("--out") : "runs/" + given->name;

            const auto run = openRun(a, resume, steps, given.get(), out);
            auto& trainer = run->trainer();
            const auto& recipe = trainer.recipe();
            const int64_t total = recipe.steps;
            printStart(resume, trainer, out);

            Progress progress(total);
            const auto start = std::chrono::steady_clock::now();
            const int64_t firstStep = trainer.stats().step;
            int64_t lastKept = -1; // the step of the last line left on screen
            auto lastDraw = start - std::chrono::seconds(1);
            const auto metric = trainer.metricName();
            auto score = [&](double value) {
                if (metric == "perplexity")
                    return "held-out perplexity " + fixed(value, 2);
                return metric == "chrF" ? "chrF " + fixed(100.0 * value, 1) : "accuracy " + percent(value);
            };
            core::HeadWatch heads; // the last logged one, for the induction task
            auto lineNow = [&] {
                const auto& s = trainer.stats();
                const std::chrono::duration<double> wall = std::chrono::steady_clock::now() - start;
                auto line = progress.line(s, s.step - firstStep, wall.count());
                if (heads.measured())
                    line +=
                        "  induction " + fixed(heads.induction, 3) + "  previous " + fixed(heads.previous, 3);
                return line;
            };

            core::RunCallbacks cb;
            cb.stopRequested = [] { return gStopSignal != 0; };
            // On a terminal the line follows every step, but no faster than the eye can read.
            cb.onStep = [&](const core::TrainStats&) {
                const auto now = std::chrono::steady_clock::now();
                if (progress.tty() && now - lastDraw > std::chrono::milliseconds(100)) {
                    progress.show(lineNow(), false);
                    lastDraw = now;
                }
            };
            // An evaluation stays on screen; without a terminal every row does (one line per 10 steps).
            cb.onLogged = [&](const core::RunProgress& p) {
                heads = p.heads;
                if (p.last)
                    return; // the final line, with its score, follows the run
                if (p.metric >= 0 || !progress.tty()) {
                    progress.show(lineNow() + (p.metric >= 0 ? "  " + score(p.metric) : std::string()), true);
                    lastKept = p.stats.step;
                }
            };
            // Installed once the run is set up: until then (a tokenizer trained on the corpus, say) Ctrl-C
            // simply ends the program, with nothing to save.
            StopSignals signals;
            if (run->run(cb) == core::RunEnd::Stopped) {
                if (lastKept != trainer.stats().step)
                    progress.show(lineNow(), true);
                std::cerr << "interrupted at step " << trainer.stats().step
                          << "; checkpoint saved; continue with: attnscope train --resume --out " << out
                          << "\n";
                return 128 + gStopSignal;
            }
            const double acc = run->finalMetric();
            progress.show(lineNow() + "  " + score(acc), true);
            printResult(score(acc), metric, recipe, heads, *run, out);
            return 0;
        });
}
