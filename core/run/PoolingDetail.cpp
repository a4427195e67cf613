#include "core/run/PoolingDetail.h"

#include <algorithm>
#include <cmath>

namespace core {

int PoolingDetail::predicted() const {
    return static_cast<int>(std::max_element(logits.begin(), logits.end()) - logits.begin());
}

std::vector<float> PoolingDetail::decisiveness() const {
    const int k = static_cast<int>(logits.size()), s = contributions.cols;
    std::vector<float> out(static_cast<std::size_t>(s), 0.0f);
    if (k == 0)
        return out;
    const int pred = predicted();
    int other = -1;
    for (int c = 0; c < k; ++c)
        if (c != pred && (other < 0 || logits[c] > logits[other]))
            other = c;
    for (int j = 0; j < s; ++j)
        out[j] = contributions.at(pred, j) - (other >= 0 ? contributions.at(other, j) : 0.0f);
    return out;
}

PoolingDetail::Padded PoolingDetail::padded(int width) const {
    const int s = static_cast<int>(scores.size());
    width = std::max(width, s);
    Padded p;
    p.beforeMask.assign(static_cast<std::size_t>(width), 0.0f);
    p.afterMask.assign(static_cast<std::size_t>(width), 0.0f);
    if (s == 0)
        return p;
    // In double, each softmax shifted by its own largest score, as softmax is computed.
    const double realTop = *std::max_element(scores.begin(), scores.end());
    const double top = width > s ? std::max<double>(realTop, padScore) : realTop;
    double real = 0.0, realAfter = 0.0;
    std::vector<double> e(static_cast<std::size_t>(s)), after(static_cast<std::size_t>(s));
    for (int j = 0; j < s; ++j) {
        real += e[j] = std::exp(scores[j] - top);
        realAfter += after[j] = std::exp(scores[j] - realTop);
    }
    const double pad = width > s ? std::exp(padScore - top) : 0.0, all = real + (width - s) * pad;
    for (int j = 0; j < width; ++j)
        p.beforeMask[j] = static_cast<float>(j < s ? e[j] / all : pad / all);
    for (int j = 0; j < s; ++j)
        p.afterMask[j] = static_cast<float>(after[j] / realAfter);
    return p;
}

std::size_t PoolingDetail::bytes() const {
    return sizeof(float) * (probabilities.size() + logits.size() + bias.size() + scores.size() +
                            weights.size() + states.data.size() + contributions.data.size());
}

} // namespace core
