#include "core/train/Trainer.h"

#include "core/analysis/HeadAnalysis.h"
#include "core/analysis/Perplexity.h"
#include "core/analysis/TranslationMetrics.h"
#include "core/base/Errors.h"
#include "core/base/Files.h"
#include "core/base/Runtime.h"
#include "core/model/ModelDirectory.h"
#include "core/model/ModelParts.h"
#include "core/model/Safetensors.h"
#include "core/model/WeightIO.h"
#include "core/train/CheckpointState.h"
#include "core/train/ClassificationData.h"
#include "core/train/FlatAdam.h"
#include "core/train/LanguageModelData.h"
#include "core/train/TaskEval.h"
#include "core/train/TrainBatches.h"
#include "core/train/TrainForward.h"
#include "core/train/TranslationData.h"

#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <filesystem>

// Shapes: B batch, S source length, T target length, V vocabulary.

namespace core {

namespace fs = std::filesystem;

namespace {

using Batch = TrainBatch;

} // namespace

struct Trainer::Impl {
    TrainRecipe recipe;
    Task task;
    ModelConfig config;
    Vocabulary vocab;
    std::unique_ptr<Tokenizer> tokenizer; // both sides share it; a classifier's texts (its classes are apart)
    fs::path out;
    ModelParts parts; // the network of config's family, in training mode
    std::unique_ptr<FlatAdam> optimizer;
    TrainStats stats;
    std::deque<std::pair<int64_t, double>> recent; // (tokens, seconds) of the last steps, for a steady rate
    std::unique_ptr<TranslationData> translation;  // translation: the pairs, encoded once
    std::unique_ptr<LanguageModelData> language;   // language model: vocabulary and token streams
    std::unique_ptr<ClassificationData> classification; // classification: the labelled texts, encoded once
    std::unique_ptr<TrainBatches> batches;

    Impl(const TrainRecipe& r, const std::string& dir)
        : recipe(r), task(r.makeTask()), config(r.modelConfig()), out(dir) {
        if (task.generated()) {
            vocab = Vocabulary::fromTokens(task.alphabet());
            tokenizer = makeTokenizer(config.tokenizerSpec(), vocab);
        } else if (task.kind() == TaskKind::LanguageModel) {
            language = std::make_unique<LanguageModelData>(recipe, dir);
            tokenizer = language->tokenizer().clone();
            vocab = tokenizer->vocab();
        } else if (task.kind() == TaskKind::Classification) {
            classification = std::make_unique<ClassificationData>(recipe, dir);
            tokenizer = classification->tokenizer().clone();
            vocab = tokenizer->vocab();
        } else {
            translation = std::make_unique<TranslationData>(recipe, dir);
            tokenizer = translation->tokenizer().clone();
            vocab = tokenizer->vocab();
        }
        const auto* corpus = translation      ? &translation->pairs()
                             : classification ? &classification->examples()
                                              : nullptr;
        batches = std::make_unique<TrainBatches>(recipe, config, vocab, corpus, language.get());
    }

    void build() {
        configureThreads(recipe.threads);
        torch::manual_seed(recipe.seed);
        parts.config = config;
        buildFamilyNetwork(parts, 4);
        if (parts.net)
            initLikeSeed(*parts.net);
        parts.module().train();
        optimizer = std::make_unique<FlatAdam>(parts.module().parameters(), recipe.adamBeta1,
                                               recipe.adamBeta2, recipe.adamEps);
    }

    // The sides as a model directory stores them: one shared tokenizer file, or a classifier's texts
    // (its classes are written into config.json).
    void writeModel(const std::string& dir) const {
        if (classification)
            ModelDirectory::write(dir, config, tokenizer.get(), *classTokenizer(config), parts.module(),
                                  DType::F32);
        else
            ModelDirectory::write(dir, config, nullptr, *tokenizer, parts.module(), DType::F32);
    }
};

Trainer::Trainer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Trainer::Trainer(const TrainRecipe& recipe, const std::string& outDir)
    : impl_(std::make_unique<Impl>(recipe, outDir)) {
    std::error_code ec;
    fs::create_directories(impl_->out, ec);
    if (ec)
        throw IoError("cannot create " + outDir + ": " + ec.message());
    impl_->build();
    // Stored with its corpus paths relative to the run, so checkpoints resume from wherever the tree is.
    impl_->recipe = recipe.rebased(outDir);
    writeFileAtomically((impl_->out / "recipe.json").string(), impl_->recipe.toJson());
    // A fresh run starts a fresh log.
    fs::remove(impl_->out / "log.csv", ec);
}

Trainer::~Trainer() = default;

double Trainer::learningRate(int64_t step, int dModel, int warmup, double factor) {
    const double s = static_cast<double>(std::max<int64_t>(step, 1));
    return factor * std::pow(dModel, -0.5) * std::min(std::pow(s, -0.5), s * std::pow(warmup, -1.5));
}

TrainStats Trainer::trainStep() {
    auto& m = *impl_;
    const auto t0 = std::chrono::steady_clock::now();
    const Batch& b = m.batches->at(m.stats.step);
    const double lr = learningRate(m.stats.step + 1, m.config.dModel, m.recipe.warmup, m.recipe.lrFactor);
    m.parts.module().train();
    // Dropout (the classifier's) draws from torch's generator: seeded from the step, so a resumed run draws
    // what the uninterrupted one did.
    torch::manual_seed(m.recipe.seed * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(m.stats.step));
    m.optimizer->zeroGrad();
    const auto logits = trainingLogits(m.parts, b, m.vocab.pad()); // (B, T, V) or a classifier's (B, K)
    // Every row of a classifier's batch counts (its labels are class indices, not tokens to skip).
    const auto loss = torch::nn::functional::cross_entropy(
        logits.reshape({-1, logits.size(-1)}), b.labels.reshape({-1}),
        torch::nn::functional::CrossEntropyFuncOptions()
            .ignore_index(m.classification ? -100 : m.vocab.pad())
            .label_smoothing(m.recipe.labelSmoothing)); // mean over counted tokens
    loss.backward();
    if (m.recipe.clipNorm > 0)
        m.optimizer->clipGradNorm(m.recipe.clipNorm);
    m.optimizer->step(lr);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    m.stats.step += 1;
    m.stats.loss = loss.item<double>();
    m.stats.lr = lr;
    // One step's rate jumps with whatever else the machine does; a short window reads steadily.
    m.recent.emplace_back(b.tokens, secs);
    if (m.recent.size() > 20)
        m.recent.pop_front();
    int64_t tokens = 0;
    double seconds = 0.0;
    for (const auto& [t, sec] : m.recent) {
        tokens += t;
        seconds += sec;
    }
    m.stats.tokensPerSecond = seconds > 0 ? static_cast<double>(tokens) / seconds : 0.0;
    m.stats.elapsedSeconds += secs;
    return m.stats;
}

void Trainer::setSteps(int64_t steps) {
    if (steps < impl_->stats.step)
        throw InputError("the run is already at step " + std::to_string(impl_->stats.step) +
                         "; cannot end it at " + std::to_string(steps));
    impl_->recipe.steps = steps;
}

BatchIds Trainer::batchIds(int64_t step) {
    const Batch& b = impl_->batches->at(step);
    auto flat = [](const torch::Tensor& t) {
        const auto c = t.contiguous();
        return std::vector<int64_t>(c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel());
    };
    BatchIds ids;
    ids.rows = b.labels.size(0);
    ids.tgtLen = b.input.defined() ? b.input.size(1) : 0;
    if (b.src.defined()) {
        ids.srcLen = b.src.size(1);
        ids.src = flat(b.src);
    }
    if (b.input.defined())
        ids.input = flat(b.input);
    ids.labels = flat(b.labels);
    ids.tokens = b.tokens;
    return ids;
}

bool Trainer::done() const {
    return impl_->stats.step >= impl_->recipe.steps;
}

const TrainStats& Trainer::stats() const {
    return impl_->stats;
}

const TrainRecipe& Trainer::recipe() const {
    return impl_->recipe;
}

std::string Trainer::outDir() const {
    return impl_->out.string();
}

double Trainer::evaluate(int n, uint64_t seed) const {
    // The same greedy decoding a shipped model is checked with, on a copy of the current weights.
    if (impl_->task.generated())
        return taskAccuracy(*currentModel(), impl_->task, n, seed);
    if (impl_->language) // perplexity of n windows spread over the held-out text
        return perplexity(*currentModel(), impl_->language->valid(), n).perplexity;
    if (impl_->classification) { // accuracy on the first n held-out texts
        const auto& valid = impl_->classification->valid();
        std::vector<std::string> texts;
        for (std::size_t i = 0; i < valid.size() && i < static_cast<std::size_t>(n); ++i)
            texts.push_back(valid[i].source);
        const auto answers = classifyTexts(*currentModel(), texts);
        int right = 0;
        for (std::size_t i = 0; i < answers.size(); ++i)
            right += answers[i] == valid[i].target ? 1 : 0;
        return texts.empty() ? 0.0 : static_cast<double>(right) / static_cast<double>(texts.size());
    }
    // Translation: chrF of the first n held-out pairs (the file's order is already a fair mix of sources).
    const auto& pairs = impl_->translation->valid();
    std::vector<std::string> sources, references;
    for (std::size_t i = 0; i < pairs.size() && i < static_cast<std::size_t>(n); ++i) {
        sources.push_back(pairs[i].source);
        references.push_back(pairs[i].target);
    }
    const auto hypotheses = greedyAnswers(*currentModel(), sources, impl_->recipe.maxTokens);
    return corpusChrf(hypotheses, references).score / 100.0;
}

std::string Trainer::metricName() const {
    if (impl_->language)
        return "perplexity";
    if (impl_->classification)
        return "accuracy";
    return impl_->task.generated() ? "exact match" : "chrF";
}

void Trainer::saveCheckpoint() {
    auto& m = *impl_;
    // Assembled beside checkpoint/ under a name nobody could plant, carrying attnscope's marker: a folder the
    // user keeps in the run folder under a fixed name is never removed as a leftover.
    const fs::path fresh(createDirectoryBeside((m.out / "checkpoint").string()));
    try {
        m.writeModel(fresh.string());
        const auto numel = m.optimizer->numel();
        writeSafetensors((fresh / "optimizer.safetensors").string(),
                         {{"exp_avg", {numel}, m.optimizer->firstMoment().data_ptr<float>()},
                          {"exp_avg_sq", {numel}, m.optimizer->secondMoment().data_ptr<float>()}},
                         {{"producer", "attnscope"}, {"optimizer", "adam"}});
        CheckpointState state;
        state.step = m.stats.step;
        state.optimizerSteps = m.optimizer->steps();
        state.elapsedSeconds = m.stats.elapsedSeconds;
        state.loss = m.stats.loss;
        state.recipe = m.recipe;
        state.write(fresh.string());
        CheckpointState::replace(m.out.string(), fresh.string());
    } catch (...) {
        std::error_code ec;
        fs::remove_all(fresh, ec);
        throw;
    }
}

TrainRecipe Trainer::savedRecipe(const std::string& outDir) {
    return CheckpointState::read(outDir).recipe;
}

std::unique_ptr<Trainer> Trainer::resume(const std::string& outDir) {
    const auto state = CheckpointState::read(outDir);
    const fs::path dir(state.dir);
    auto impl = std::make_unique<Impl>(state.recipe, outDir);
    impl->build();
    const auto weights = SafetensorsFile::open((dir / "model.safetensors").string());
    if (impl->parts.net)
        loadWeights(*impl->parts.net, weights);
    else
        loadParameters(impl->parts.module(), weights);
    const auto optPath = (dir / "optimizer.safetensors").string();
    if (!fs::exists(optPath))
        throw ModelError(optPath + " is missing: the checkpoint was written by an older attnscope, whose "
                                   "optimizer state this version cannot read; start the run again");
    const auto opt = SafetensorsFile::open(optPath);
    auto moment = [&](const char* name) {
        const auto* t = opt.find(name);
        if (!t)
            throw FormatError(optPath + ": tensor " + name + " is missing");
        return opt.toFloat32(*t);
    };
    impl->optimizer->restore(moment("exp_avg"), moment("exp_avg_sq"), state.optimizerSteps, optPath);
    impl->stats.step = state.step;
    impl->stats.elapsedSeconds = state.elapsedSeconds;
    impl->stats.loss = state.loss;
    // Log rows written after the checkpoint describe steps that will be run again.
    TrainLog::keepUpTo((fs::path(outDir) / "log.csv").string(), impl->stats.step);
    return std::unique_ptr<Trainer>(new Trainer(std::move(impl)));
}

void Trainer::exportModel(const std::string& dir) const {
    impl_->writeModel(dir.empty() ? (impl_->out / "model").string() : dir);
}

std::shared_ptr<const Model> Trainer::currentModel() const {
    auto& m = *impl_;
    auto impl = std::make_unique<ModelParts>();
    impl->config = m.config;
    impl->directory = (m.out / "model").string();
    impl->tgtTokenizer = m.classification ? classTokenizer(m.config) : m.tokenizer->clone();
    if (m.config.hasEncoder())
        impl->srcTokenizer = m.tokenizer->clone();
    buildFamilyNetwork(*impl);
    {
        torch::NoGradGuard noGrad;
        auto dst = impl->module().named_parameters();
        for (const auto& p : m.parts.module().named_parameters())
            dst[p.key()].copy_(p.value());
        auto dstBuffers = impl->module().named_buffers();
        for (const auto& b : m.parts.module().named_buffers())
            if (dstBuffers.contains(b.key()))
                dstBuffers[b.key()].copy_(b.value());
    }
    return Model::adopt(std::move(impl));
}

HeadWatch Trainer::watchHeads() const {
    HeadWatch w;
    // Only the induction task is about a head forming; elsewhere the scores would cost time and say little.
    if (impl_->task.kind() != TaskKind::Induction)
        return w;
    for (const auto& s : analyzeHeads(*currentModel(), HeadAnalysisSettings{})) {
        w.induction = std::max(w.induction, s.inductionScore);
        w.previous = std::max(w.previous, s.previousTokenScore);
    }
    return w;
}

HeadWatch Trainer::log(double accuracy) {
    const auto heads = watchHeads();
    TrainLog::append((impl_->out / "log.csv").string(), impl_->stats, accuracy, heads);
    return heads;
}

} // namespace core
