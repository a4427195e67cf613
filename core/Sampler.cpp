#include "core/Sampler.h"

#include "core/Errors.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

namespace core {

int64_t sampleToken(const std::vector<float>& logProbs, const SamplingSettings& s, int64_t step) {
    if (logProbs.empty())
        throw InputError("no distribution to sample from");
    if (s.greedy)
        return std::max_element(logProbs.begin(), logProbs.end()) - logProbs.begin();
    if (!(s.temperature > 0.0))
        throw InputError("temperature must be greater than 0");
    if (s.topK < 0)
        throw InputError("top-k must be 0 (off) or positive");
    if (!(s.topP > 0.0 && s.topP <= 1.0))
        throw InputError("top-p must be in (0, 1]");

    std::vector<int64_t> order(logProbs.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
        return logProbs[static_cast<std::size_t>(a)] > logProbs[static_cast<std::size_t>(b)];
    });
    std::size_t keep = order.size();
    if (s.topK > 0)
        keep = std::min(keep, static_cast<std::size_t>(s.topK));

    const double top = logProbs[static_cast<std::size_t>(order[0])];
    std::vector<double> w(keep);
    for (std::size_t i = 0; i < keep; ++i)
        w[i] = std::exp((logProbs[static_cast<std::size_t>(order[i])] - top) / s.temperature);
    const double total = std::accumulate(w.begin(), w.end(), 0.0);
    if (s.topP < 1.0) {
        double mass = 0.0;
        std::size_t n = 0;
        while (n < keep && mass < s.topP * total)
            mass += w[n++];
        w.resize(std::max<std::size_t>(n, 1));
    }
    // A stream per (seed, step): stepping back and redoing a step draws the same number.
    std::mt19937_64 rng(s.seed * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(step));
    std::discrete_distribution<std::size_t> pick(w.begin(), w.end());
    return order[pick(rng)];
}

} // namespace core
