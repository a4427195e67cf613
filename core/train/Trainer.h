#pragma once
// train/ — making models: the Trainer (this file), recipes, the flat Adam, the generated tasks and their
// evaluation, and the data a language model or a translator is trained on. The top floor of core/: it may
// include every other folder, and none includes it.
//
// Teacher-forced training of a model on a task: Adam with the warm-up schedule of "Attention Is All You
// Need", label smoothing, gradient clipping, batches grouped by length. The run is a function of the recipe:
// the same seed gives the same weights, and a resumed run continues exactly where the checkpoint was taken.
//
// Output directory layout:
//   checkpoint/   a model directory (config.json, vocab.json, model.safetensors) plus optimizer.safetensors
//                 (Adam's moments, flat in parameter order) and
//                 state.json (step); replaced as a whole, so a crash leaves the previous checkpoint
//   model/        the final model, written by exportModel()
//   recipe.json   the recipe the run started with
//   log.csv       step,loss,lr,tokens_per_s,elapsed_s,accuracy,induction,previous_token (TrainLog)

#include "core/model/Model.h"
#include "core/train/TrainLog.h"
#include "core/train/TrainRecipe.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace core {

/// The token ids of one training batch, row-major, so another implementation can be timed on exactly the
/// same data.
struct BatchIds {
    int64_t rows = 0;
    int64_t srcLen = 0;          ///< 0 for decoder-only models
    int64_t tgtLen = 0;          ///< decoder input and labels
    std::vector<int64_t> src;    ///< rows × srcLen
    std::vector<int64_t> input;  ///< rows × tgtLen
    std::vector<int64_t> labels; ///< rows × tgtLen; <pad> where no loss is taken
    int64_t tokens = 0;          ///< labels that count
};

class Trainer {
public:
    /// The examples every accuracy report draws (a stream of its own, never the training data), so the
    /// command line and the window report the same figure.
    static constexpr uint64_t kEvalSeed = 0xE7A1;

    /// A fresh run of the recipe, writing into outDir (created). Throws ConfigError for a bad recipe.
    Trainer(const TrainRecipe& recipe, const std::string& outDir);
    /// Continues the run saved in outDir/checkpoint. Throws ModelError when there is none.
    static std::unique_ptr<Trainer> resume(const std::string& outDir);
    /// The recipe of the run saved in outDir as its checkpoint holds it (with a later end, when a resume
    /// moved it). Throws as resume() does.
    static TrainRecipe savedRecipe(const std::string& outDir);
    ~Trainer();
    Trainer(const Trainer&) = delete;
    Trainer& operator=(const Trainer&) = delete;

    /// One optimizer step on the next batch.
    TrainStats trainStep();
    bool done() const;
    /// Moves the end of the run (to extend a finished one, say); saved with the next checkpoint, so a
    /// later resume trains to the same end. Throws InputError below the steps already done.
    void setSteps(int64_t steps);
    const TrainStats& stats() const;
    const TrainRecipe& recipe() const;

    /// The batch trainStep() uses at `step` (0-based).
    BatchIds batchIds(int64_t step);
    /// Exact-match accuracy of greedy decoding on n fresh examples drawn with `seed` (never the training
    /// stream's seeds).
    double evaluate(int n, uint64_t seed) const;
    /// What evaluate() measures: "exact match" for generated tasks, "chrF" (÷ 100) for translation, whose
    /// n pairs are the first of the recipe's `valid` file (seed unused).
    std::string metricName() const;
    /// Writes weights, optimizer state and the step counter to outDir/checkpoint, atomically as a whole.
    void saveCheckpoint();
    /// Writes the current weights as a model directory (outDir/model unless dir is given).
    void exportModel(const std::string& dir = {}) const;
    /// A copy of the current weights as an immutable model, for showing attention while training.
    std::shared_ptr<const Model> currentModel() const;
    /// Appends a row to outDir/log.csv (accuracy < 0 is left empty); for the induction task the row also
    /// holds watchHeads(), which it returns.
    HeadWatch log(double accuracy = -1.0);
    /// The current model's best induction and previous-token heads (the head analysis's default probes, so
    /// the last row agrees with `attnscope heads` on the finished model). Unmeasured for other tasks.
    HeadWatch watchHeads() const;
    std::string outDir() const;

    /// lr at a step (1-based) for a model width: factor · d^-0.5 · min(step^-0.5, step · warmup^-1.5).
    static double learningRate(int64_t step, int dModel, int warmup, double factor);

private:
    struct Impl;
    explicit Trainer(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

} // namespace core
