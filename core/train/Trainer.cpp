#include "core/train/Trainer.h"

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
#include "core/train/FlatAdam.h"
#include "core/train/LanguageModelData.h"
#include "core/train/TaskEval.h"
#include "core/train/TranslationData.h"

#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <filesystem>
#include <numeric>
#include <random>

// Shapes: B batch, S source length, T target length, V vocabulary.

namespace core {

namespace fs = std::filesystem;

namespace {

// splitmix64: independent, reproducible streams from (seed, index) without storing any RNG state.
uint64_t mix(uint64_t seed, uint64_t index) {
    uint64_t z = seed + 0x9E3779B97F4A7C15ull * (index + 1);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

using Encoded = EncodedPair;

struct Batch {
    torch::Tensor src;    // (B, S), encoder–decoder only
    torch::Tensor input;  // (B, T) decoder input
    torch::Tensor labels; // (B, T) next tokens; pad where no loss is taken
    int64_t tokens = 0;   // labels that count
};

} // namespace

struct Trainer::Impl {
    TrainRecipe recipe;
    Task task;
    ModelConfig config;
    Vocabulary vocab;
    std::unique_ptr<Tokenizer> tokenizer; // both sides share it
    fs::path out;
    nn::Transformer net{nullptr};
    std::unique_ptr<FlatAdam> optimizer;
    TrainStats stats;
    int64_t poolIndex = -1;
    std::deque<std::pair<int64_t, double>> recent; // (tokens, seconds) of the last steps, for a steady rate
    std::vector<Batch> pool;                       // the batches of the current pool, in training order
    std::unique_ptr<TranslationData> translation;  // translation: the pairs, encoded once
    std::unique_ptr<LanguageModelData> language;   // language model: vocabulary and token streams

    Impl(const TrainRecipe& r, const std::string& dir)
        : recipe(r), task(r.makeTask()), config(r.modelConfig()), out(dir) {
        if (task.generated()) {
            vocab = Vocabulary::fromTokens(task.alphabet());
            tokenizer = makeTokenizer(config.tokenizerSpec(), vocab);
        } else if (task.kind() == TaskKind::LanguageModel) {
            language = std::make_unique<LanguageModelData>(recipe, dir);
            tokenizer = language->tokenizer().clone();
            vocab = tokenizer->vocab();
        } else {
            translation = std::make_unique<TranslationData>(recipe, dir);
            tokenizer = translation->tokenizer().clone();
            vocab = tokenizer->vocab();
        }
    }

    void build() {
        configureThreads(recipe.threads);
        torch::manual_seed(recipe.seed);
        net = buildNetwork(config, 4);
        initLikeSeed(*net);
        net->train();
        optimizer =
            std::make_unique<FlatAdam>(net->parameters(), recipe.adamBeta1, recipe.adamBeta2, recipe.adamEps);
    }

    std::vector<int64_t> ids(const std::string& text) const {
        std::vector<int64_t> result;
        for (char c : text)
            result.push_back(vocab.find(std::string(1, c)));
        return result;
    }

    Batch makeBatch(const std::vector<Encoded>& examples) const {
        const auto bos = vocab.bos(), eos = vocab.eos(), pad = vocab.pad();
        std::vector<std::vector<int64_t>> src, seq;
        std::vector<std::size_t> promptLen;
        for (const auto& e : examples) {
            auto s = e.src;
            const auto& t = e.tgt;
            std::vector<int64_t> row{bos};
            if (config.hasEncoder()) {
                s.insert(s.begin(), bos);
                s.push_back(eos);
                src.push_back(std::move(s));
                promptLen.push_back(1);
            } else {
                // A decoder-only model reads "<bos> source <eos>" and learns only what follows.
                row.insert(row.end(), s.begin(), s.end());
                row.push_back(eos);
                promptLen.push_back(row.size());
            }
            row.insert(row.end(), t.begin(), t.end());
            row.push_back(eos);
            seq.push_back(std::move(row));
        }
        Batch b;
        if (config.hasEncoder())
            b.src = paddedIds(src, pad);                        // (B, S)
        auto full = paddedIds(seq, pad);                        // (B, T+1)
        b.input = full.narrow(1, 0, full.size(1) - 1);          // (B, T)
        b.labels = full.narrow(1, 1, full.size(1) - 1).clone(); // (B, T)
        auto lab = b.labels.accessor<int64_t, 2>();
        for (std::size_t i = 0; i < promptLen.size(); ++i)
            for (std::size_t j = 0; j + 1 < promptLen[i]; ++j)
                lab[static_cast<int64_t>(i)][static_cast<int64_t>(j)] = pad; // no loss on the prompt
        b.tokens = (b.labels != pad).sum().item<int64_t>();
        return b;
    }

    /// The batch of step `step` (0-based): a function of the seed and the step alone, so a resumed run
    /// sees exactly the data the uninterrupted run would have seen.
    const Batch& batchFor(int64_t step) {
        if (language) {
            // Every window has the same length: no pools to sort by length.
            const auto rows = paddedIds(language->batch(recipe.seed, step, recipe.batchSize, config.maxLen),
                                        vocab.pad()); // (B, T+1)
            Batch b;
            b.input = rows.narrow(1, 0, config.maxLen);          // (B, T)
            b.labels = rows.narrow(1, 1, config.maxLen).clone(); // (B, T)
            b.tokens = (b.labels != vocab.pad()).sum().item<int64_t>();
            pool.assign(1, std::move(b));
            poolIndex = -1;
            return pool.front();
        }
        const int64_t p = step / recipe.lengthBuckets;
        if (p != poolIndex) {
            std::mt19937_64 rng(mix(recipe.seed, static_cast<uint64_t>(p)));
            const std::size_t n = static_cast<std::size_t>(recipe.lengthBuckets) * recipe.batchSize;
            std::vector<Encoded> examples(n);
            for (auto& e : examples) {
                if (task.generated()) {
                    const auto ex = task.sample(rng);
                    e = {ids(ex.source), ids(ex.target)};
                } else {
                    const auto& pairs = translation->pairs();
                    e = pairs[std::uniform_int_distribution<std::size_t>(0, pairs.size() - 1)(rng)];
                }
            }
            // Grouped by length, so a batch carries little padding; then the batches are shuffled.
            std::stable_sort(examples.begin(), examples.end(), [](const Encoded& a, const Encoded& b) {
                return std::make_pair(a.src.size(), a.tgt.size()) <
                       std::make_pair(b.src.size(), b.tgt.size());
            });
            pool.clear();
            for (std::size_t i = 0; i < n; i += static_cast<std::size_t>(recipe.batchSize))
                pool.push_back(
                    makeBatch({examples.begin() + static_cast<std::ptrdiff_t>(i),
                               examples.begin() + static_cast<std::ptrdiff_t>(i + recipe.batchSize)}));
            std::shuffle(pool.begin(), pool.end(), rng);
            poolIndex = p;
        }
        return pool[static_cast<std::size_t>(step % recipe.lengthBuckets)];
    }

    torch::Tensor logits(const Batch& b) {
        torch::Tensor memory, srcMask;
        if (config.hasEncoder()) {
            srcMask = nn::sourceMask(b.src, vocab.pad());
            memory = net->encode(b.src, srcMask, nullptr); // (B, S, C)
        }
        const auto h = net->decode(b.input, memory, srcMask, nn::targetMask(b.input, vocab.pad()), 0, nullptr,
                                   nullptr); // (B, T, C)
        return net->generator->logits(h);    // (B, T, V)
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
    const Batch& b = m.batchFor(m.stats.step);
    const double lr = learningRate(m.stats.step + 1, m.config.dModel, m.recipe.warmup, m.recipe.lrFactor);
    m.net->train();
    m.optimizer->zeroGrad();
    const auto logits = m.logits(b); // (B, T, V)
    const auto loss = torch::nn::functional::cross_entropy(
        logits.reshape({-1, logits.size(-1)}), b.labels.reshape({-1}),
        torch::nn::functional::CrossEntropyFuncOptions()
            .ignore_index(m.vocab.pad())
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
    const Batch& b = impl_->batchFor(step);
    auto flat = [](const torch::Tensor& t) {
        const auto c = t.contiguous();
        return std::vector<int64_t>(c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel());
    };
    BatchIds ids;
    ids.rows = b.input.size(0);
    ids.tgtLen = b.input.size(1);
    if (b.src.defined()) {
        ids.srcLen = b.src.size(1);
        ids.src = flat(b.src);
    }
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
    return impl_->task.generated() ? "exact match" : "chrF";
}

void Trainer::saveCheckpoint() {
    auto& m = *impl_;
    const fs::path fresh = m.out / "checkpoint.new";
    std::error_code ec;
    fs::remove_all(fresh, ec);
    ModelDirectory::write(fresh.string(), m.config, nullptr, *m.tokenizer, *m.net, DType::F32);
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
}

TrainRecipe Trainer::savedRecipe(const std::string& outDir) {
    return CheckpointState::read(outDir).recipe;
}

std::unique_ptr<Trainer> Trainer::resume(const std::string& outDir) {
    const auto state = CheckpointState::read(outDir);
    const fs::path dir(state.dir);
    auto impl = std::make_unique<Impl>(state.recipe, outDir);
    impl->build();
    loadWeights(*impl->net, SafetensorsFile::open((dir / "model.safetensors").string()));
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
    auto& m = *impl_;
    ModelDirectory::write(dir.empty() ? (m.out / "model").string() : dir, m.config, nullptr, *m.tokenizer,
                          *m.net, DType::F32);
}

std::shared_ptr<const Model> Trainer::currentModel() const {
    auto& m = *impl_;
    auto impl = std::make_unique<ModelParts>();
    impl->config = m.config;
    impl->directory = (m.out / "model").string();
    impl->tgtTokenizer = m.tokenizer->clone();
    if (m.config.hasEncoder())
        impl->srcTokenizer = m.tokenizer->clone();
    impl->net = buildNetwork(m.config);
    {
        torch::NoGradGuard noGrad;
        auto dst = impl->net->named_parameters();
        for (const auto& p : m.net->named_parameters())
            dst[p.key()].copy_(p.value());
        auto dstBuffers = impl->net->named_buffers();
        for (const auto& b : m.net->named_buffers())
            if (dstBuffers.contains(b.key()))
                dstBuffers[b.key()].copy_(b.value());
    }
    return Model::adopt(std::move(impl));
}

void Trainer::log(double accuracy) {
    TrainLog::append((impl_->out / "log.csv").string(), impl_->stats, accuracy);
}

} // namespace core
