#include "core/run/Sampler.h"

#include "core/base/Errors.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

namespace core {

namespace {

// The kept ids, most likely first, and their unnormalised weights exp((logp − top) / T): the one place
// temperature, top-k and top-p are applied, for the draw and for showing what it draws from.
struct Kept {
    std::vector<int64_t> order;
    std::vector<double> weights; // one per kept id, a prefix of order
};

Kept kept(const std::vector<float>& logProbs, const SamplingSettings& s) {
    if (logProbs.empty())
        throw InputError("no distribution to sample from");
    Kept k;
    if (s.greedy) {
        k.order = {std::max_element(logProbs.begin(), logProbs.end()) - logProbs.begin()};
        k.weights = {1.0};
        return k;
    }
    if (!(s.temperature > 0.0))
        throw InputError("temperature must be greater than 0");
    if (s.topK < 0)
        throw InputError("top-k must be 0 (off) or positive");
    if (!(s.topP > 0.0 && s.topP <= 1.0))
        throw InputError("top-p must be in (0, 1]");

    k.order.resize(logProbs.size());
    std::iota(k.order.begin(), k.order.end(), 0);
    std::stable_sort(k.order.begin(), k.order.end(), [&](int64_t a, int64_t b) {
        return logProbs[static_cast<std::size_t>(a)] > logProbs[static_cast<std::size_t>(b)];
    });
    std::size_t keep = k.order.size();
    if (s.topK > 0)
        keep = std::min(keep, static_cast<std::size_t>(s.topK));

    const double top = logProbs[static_cast<std::size_t>(k.order[0])];
    auto& w = k.weights;
    w.resize(keep);
    for (std::size_t i = 0; i < keep; ++i)
        w[i] = std::exp((logProbs[static_cast<std::size_t>(k.order[i])] - top) / s.temperature);
    const double total = std::accumulate(w.begin(), w.end(), 0.0);
    if (s.topP < 1.0) {
        double mass = 0.0;
        std::size_t n = 0;
        while (n < keep && mass < s.topP * total)
            mass += w[n++];
        w.resize(std::max<std::size_t>(n, 1));
    }
    return k;
}

} // namespace

std::vector<std::pair<int64_t, double>> samplingDistribution(const std::vector<float>& logProbs,
                                                             const SamplingSettings& s) {
    const auto k = kept(logProbs, s);
    const double total = std::accumulate(k.weights.begin(), k.weights.end(), 0.0);
    std::vector<std::pair<int64_t, double>> out;
    for (std::size_t i = 0; i < k.weights.size(); ++i)
        out.emplace_back(k.order[i], k.weights[i] / total);
    return out;
}

SamplingPipeline samplingPipeline(const std::vector<float>& logProbs, const SamplingSettings& s, int64_t step,
                                  int shown) {
    const auto k = kept(logProbs, s);
    SamplingPipeline p;
    p.settings = s;
    p.step = step;
    p.vocabulary = static_cast<int64_t>(logProbs.size());
    p.keptCount = static_cast<int64_t>(k.weights.size());
    p.chosen = sampleToken(logProbs, s, step);
    // The tempered distribution over every token (greedy: temperature 1), in double like kept().
    const double temperature = s.greedy ? 1.0 : s.temperature;
    const double top = *std::max_element(logProbs.begin(), logProbs.end());
    double all = 0.0;
    for (const float lp : logProbs)
        all += std::exp((lp - top) / temperature);
    const double keptTotal = std::accumulate(k.weights.begin(), k.weights.end(), 0.0);
    p.keptMass = keptTotal / all; // greedy keeps the argmax alone, whose weight is exp(0) = 1
    // Candidates in kept()'s order: the kept ones are its first keptCount, so rank r is kept exactly when
    // r < keptCount. Greedy sorted nothing; its argmax (the lowest id among equals) leads the same order.
    std::vector<int64_t> order = k.order;
    auto n = std::min<std::size_t>(order.size(), static_cast<std::size_t>(std::max(shown, 0)));
    if (s.greedy) {
        // Only the ranks shown are needed, in a stable sort's order (higher first, then the lower id). The
        // window asks on its own thread for every result: over 8,000 tokens, sorting them all took 0.5 ms,
        // the ten shown alone 0.1.
        order.resize(logProbs.size());
        std::iota(order.begin(), order.end(), 0);
        n = std::min<std::size_t>(order.size(), static_cast<std::size_t>(std::max(shown, 0)));
        std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(n), order.end(),
                          [&](int64_t a, int64_t b) {
                              const float x = logProbs[static_cast<std::size_t>(a)];
                              const float y = logProbs[static_cast<std::size_t>(b)];
                              return x > y || (x == y && a < b);
                          });
    }
    const auto topK =
        s.greedy ? std::size_t(1)
                 : (s.topK > 0 ? std::min(order.size(), static_cast<std::size_t>(s.topK)) : order.size());
    for (std::size_t r = 0; r < n; ++r) {
        SamplingPipeline::Candidate c;
        c.id = order[r];
        c.logProb = logProbs[static_cast<std::size_t>(c.id)];
        c.tempered = std::exp((c.logProb - top) / temperature) / all;
        c.inTopK = r < topK;
        c.inTopP = r < k.weights.size();
        c.kept = c.inTopP ? k.weights[r] / keptTotal : 0.0;
        p.candidates.push_back(c);
    }
    return p;
}

int64_t sampleToken(const std::vector<float>& logProbs, const SamplingSettings& s, int64_t step) {
    const auto k = kept(logProbs, s);
    if (s.greedy)
        return k.order.front();
    // A stream per (seed, step): stepping back and redoing a step draws the same number.
    std::mt19937_64 rng(s.seed * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(step));
    std::discrete_distribution<std::size_t> pick(k.weights.begin(), k.weights.end());
    return k.order[pick(rng)];
}

} // namespace core
