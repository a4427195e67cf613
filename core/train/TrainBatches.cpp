#include "core/train/TrainBatches.h"

#include "core/train/LanguageModelData.h"

#include <torch/torch.h>

#include <algorithm>
#include <random>

// Shapes: B batch, S source length, T target length.

namespace core {

namespace {

// splitmix64: independent, reproducible streams from (seed, index) without storing any RNG state.
uint64_t mix(uint64_t seed, uint64_t index) {
    uint64_t z = seed + 0x9E3779B97F4A7C15ull * (index + 1);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

} // namespace

TrainBatches::TrainBatches(const TrainRecipe& recipe, const ModelConfig& config, const Vocabulary& vocab,
                           const std::vector<EncodedPair>* corpus, const LanguageModelData* language)
    : recipe_(recipe), config_(config), vocab_(vocab), task_(recipe.makeTask()), corpus_(corpus),
      language_(language) {}

std::vector<int64_t> TrainBatches::ids(const std::string& text) const {
    std::vector<int64_t> result;
    for (char c : text)
        result.push_back(vocab_.find(std::string(1, c)));
    return result;
}

TrainBatch TrainBatches::makeBatch(const std::vector<EncodedPair>& examples) const {
    const auto bos = vocab_.bos(), eos = vocab_.eos(), pad = vocab_.pad();
    if (config_.family == Family::AttentionClassifier)
        return classBatch(examples);
    std::vector<std::vector<int64_t>> src, seq;
    std::vector<std::size_t> promptLen;
    for (const auto& e : examples) {
        auto s = e.src;
        const auto& t = e.tgt;
        std::vector<int64_t> row{bos};
        if (config_.hasEncoder()) {
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
    TrainBatch b;
    if (config_.hasEncoder())
        b.src = paddedIds(src, pad); // (B, S)
    if (config_.recurrent())
        b.lengths = lengthsOf(src);                         // (B)
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

torch::Tensor TrainBatches::lengthsOf(const std::vector<std::vector<int64_t>>& rows) {
    std::vector<int64_t> n;
    for (const auto& r : rows)
        n.push_back(static_cast<int64_t>(r.size()));
    return torch::tensor(n, torch::kLong); // (B)
}

// Texts as the window reads them: <bos> text <eos>, cut at max_len; one label (a class index) a row.
TrainBatch TrainBatches::classBatch(const std::vector<EncodedPair>& examples) const {
    std::vector<std::vector<int64_t>> src;
    std::vector<int64_t> labels;
    for (const auto& e : examples) {
        auto& row = src.emplace_back(1, vocab_.bos());
        row.insert(row.end(), e.src.begin(), e.src.end());
        row.push_back(vocab_.eos());
        row.resize(std::min<std::size_t>(row.size(), static_cast<std::size_t>(config_.maxLen)));
        labels.push_back(e.tgt.front());
    }
    TrainBatch b;
    b.src = paddedIds(src, vocab_.pad());           // (B, S)
    b.lengths = lengthsOf(src);                     // (B)
    b.labels = torch::tensor(labels, torch::kLong); // (B)
    b.tokens = b.lengths.sum().item<int64_t>();     // the rate counts the tokens read
    return b;
}

const TrainBatch& TrainBatches::at(int64_t step) {
    if (language_) {
        // Every window has the same length: no pools to sort by length.
        const auto rows = paddedIds(language_->batch(recipe_.seed, step, recipe_.batchSize, config_.maxLen),
                                    vocab_.pad()); // (B, T+1)
        TrainBatch b;
        b.input = rows.narrow(1, 0, config_.maxLen);          // (B, T)
        b.labels = rows.narrow(1, 1, config_.maxLen).clone(); // (B, T)
        b.tokens = (b.labels != vocab_.pad()).sum().item<int64_t>();
        pool_.assign(1, std::move(b));
        poolIndex_ = -1;
        return pool_.front();
    }
    const int64_t p = step / recipe_.lengthBuckets;
    if (p != poolIndex_) {
        std::mt19937_64 rng(mix(recipe_.seed, static_cast<uint64_t>(p)));
        const std::size_t n = static_cast<std::size_t>(recipe_.lengthBuckets) * recipe_.batchSize;
        std::vector<EncodedPair> examples(n);
        for (auto& e : examples) {
            if (task_.generated()) {
                const auto ex = task_.sample(rng);
                e = {ids(ex.source), ids(ex.target)};
            } else {
                const auto& pairs = *corpus_;
                e = pairs[std::uniform_int_distribution<std::size_t>(0, pairs.size() - 1)(rng)];
            }
        }
        // Grouped by length, so a batch carries little padding; then the batches are shuffled.
        std::stable_sort(examples.begin(), examples.end(), [](const EncodedPair& a, const EncodedPair& b) {
            return std::make_pair(a.src.size(), a.tgt.size()) < std::make_pair(b.src.size(), b.tgt.size());
        });
        pool_.clear();
        for (std::size_t i = 0; i < n; i += static_cast<std::size_t>(recipe_.batchSize))
            pool_.push_back(
                makeBatch({examples.begin() + static_cast<std::ptrdiff_t>(i),
                           examples.begin() + static_cast<std::ptrdiff_t>(i + recipe_.batchSize)}));
        std::shuffle(pool_.begin(), pool_.end(), rng);
        poolIndex_ = p;
    }
    return pool_[static_cast<std::size_t>(step % recipe_.lengthBuckets)];
}

} // namespace core
