#pragma once
// Picking the next token from a distribution: greedy, or sampling with temperature, top-k and top-p.

#include <cstdint>
#include <string>
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

/// Why a run decodes no further: it has not ended, it decoded <eos>, its target reached the positions it may
/// have (max_len), or its model reads the text and decodes nothing (a classifier, an encoder-only model).
enum class RunEnding { Open, Eos, MaxLength, ReadsOnly };

/// The way from the model's distribution to the next token, stage by stage, as sampleToken takes it.
struct SamplingPipeline {
    struct Candidate {
        int64_t id = 0;
        std::string text;      ///< the token as the vocabulary spells it (filled by Session)
        float logProb = 0.0f;  ///< the model's log-probability (a logit up to a shift softmax ignores)
        double tempered = 0.0; ///< softmax(logProb / temperature) over the whole vocabulary
        bool inTopK = true;    ///< survives the top-k cut
        bool inTopP = true;    ///< survives the top-p cut as well
        double kept = 0.0;     ///< the renormalised probability sampleToken draws with; 0 when cut
    };
    SamplingSettings settings;
    int64_t step = 0;                   ///< the random stream's index (the target length)
    std::vector<Candidate> candidates;  ///< the most likely first (ties by id), at most `shown` of them
    int64_t vocabulary = 0;             ///< tokens in the distribution
    int64_t keptCount = 0;              ///< tokens left after both cuts
    double keptMass = 0.0;              ///< their tempered probability before renormalising
    int64_t chosen = -1;                ///< the token sampleToken draws (the argmax when greedy)
    bool finished = false;              ///< the run is over (<eos>, max_len): Step draws nothing (Session)
    RunEnding ending = RunEnding::Open; ///< and why (Session)
    std::string chosenText;             ///< its spelling (filled by Session)
};

/// The pipeline of the next token after a distribution: logits ÷ temperature, the top-k and top-p cuts, the
/// renormalised distribution and the token drawn for `step`, which is sampleToken's. Shows the `shown`
/// most likely candidates (every kept one is among them unless more than `shown` are kept). Throws as
/// sampleToken does.
SamplingPipeline samplingPipeline(const std::vector<float>& logProbs, const SamplingSettings& s, int64_t step,
                                  int shown = 20);

/// The distribution sampleToken draws from: the kept tokens as (id, probability), most likely first (ties
/// by id), probabilities summing to 1. Greedy keeps the argmax alone. Throws as sampleToken does.
std::vector<std::pair<int64_t, double>> samplingDistribution(const std::vector<float>& logProbs,
                                                             const SamplingSettings& s);

/// Returns the chosen id. `step` selects the random stream, so stepping back and forward again repeats
/// the same choice. Throws InputError for settings out of range.
int64_t sampleToken(const std::vector<float>& logProbs, const SamplingSettings& s, int64_t step);

} // namespace core
