#pragma once
// Algorithmic tasks with generated data, for training small models whose attention shows the algorithm:
// copy, reverse, sort, and addition written least-significant digit first (each output digit depends on
// the digits at the same place in both numbers, plus a carry: a non-trivial alignment); and induction, a
// random segment of distinct letters given twice, which a decoder-only model can only continue by finding
// where the current letter came before and taking the letter after it (an induction head).

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace core {

/// Translation, language modelling and classification are not generated: their text comes from a corpus the
/// recipe names (see TrainRecipe), so a Task of those kinds only names it.
enum class TaskKind { Copy, Reverse, Sort, Addition, Translation, LanguageModel, Classification, Induction };

struct Example {
    std::string source;
    std::string target;
};

class Task {
public:
    /// "copy" | "reverse" | "sort" | "addition" | "translation" | "language_model" | "classification" |
    /// "induction"; throws ConfigError naming the bad name.
    static TaskKind parseKind(const std::string& name);
    static const char* toString(TaskKind kind);

    /// The longest sequence a task makes. The tasks are puzzles of a few dozen symbols: a max_len of 10^6
    /// made every batch 10^12 attention scores, and 2^31 - 1 overflowed int while sizing the model.
    static constexpr int kMaxLength = 1024;

    /// minLen/maxLen: symbols of a copy/reverse/sort source, or digits of each addend. Throws ConfigError
    /// unless 1 <= minLen <= maxLen <= kMaxLength.
    Task(TaskKind kind, int minLen, int maxLen);

    TaskKind kind() const { return kind_; }
    bool generated() const {
        return kind_ != TaskKind::Translation && kind_ != TaskKind::LanguageModel &&
               kind_ != TaskKind::Classification;
    }
    /// The characters sources and targets are made of, in a fixed order (the vocabulary after the specials).
    std::vector<std::string> alphabet() const;
    /// One example drawn from rng.
    Example sample(std::mt19937_64& rng) const;
    /// The answer for a source, computed directly (for checking a model's output).
    std::string solve(const std::string& source) const;
    /// Longest source and target in characters, without <bos>/<eos>.
    int maxSourceLength() const;
    int maxTargetLength() const;

private:
    TaskKind kind_;
    int minLen_;
    int maxLen_;
};

} // namespace core
