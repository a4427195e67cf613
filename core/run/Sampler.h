#pragma once
// Picking the next token from a distribution: greedy, or sampling with temperature, top-k and top-p.

#include <cstdint>
#include <utility>
#include <vector>

namespace core {

struct SamplingSettings {
    bool greedy = true;       // take the most likely token; the rest is ignored
    double temperature = 1.0; // > 0; below 1 sharpens, above 1 flattens
    int topK = 0;             // keep the k most likely tokens; 0 keeps all
    double topP = 1.0;        // keep the smallest set whose probability reaches p; 1 keeps all
    uint64_t seed = 0;        // the same seed gives the same run
};

/// The distribution sampleToken draws from: the kept tokens as (id, probability), most likely first (ties
/// by id), probabilities summing to 1. Greedy keeps the argmax alone. Throws as sampleToken does.
std::vector<std::pair<int64_t, double>> samplingDistribution(const std::vector<float>& logProbs,
                                                             const SamplingSettings& s);

/// Returns the chosen id. `step` selects the random stream, so stepping back and forward again repeats
/// the same choice. Throws InputError for settings out of range.
int64_t sampleToken(const std::vector<float>& logProbs, const SamplingSettings& s, int64_t step);

} // namespace core
