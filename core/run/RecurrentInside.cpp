#include "core/run/RecurrentInside.h"

#include <algorithm>
#include <cmath>

namespace core {

void finishRecurrentRow(InsideRow& row) {
    const int keys = row.products.rows;
    row.recurrent = true;
    row.scale = 1.0f; // no 1/√d: the seed's scores are not dot products of two projections
    row.scores.assign(keys, row.shift);
    for (int j = 0; j < keys; ++j)
        for (int d = 0; d < row.products.cols; ++d)
            row.scores[j] += row.products.at(j, d);
    row.scaled = row.scores;
    row.visible.assign(keys, true);
    // In double, max first: the same softmax the forward pass took, to its rounding.
    double top = keys ? *std::max_element(row.scores.begin(), row.scores.end()) : 0.0, sum = 0.0;
    std::vector<double> e(keys);
    for (int j = 0; j < keys; ++j)
        sum += e[j] = std::exp(row.scores[j] - top);
    row.weights.resize(keys);
    for (int j = 0; j < keys; ++j)
        row.weights[j] = static_cast<float>(e[j] / sum);
    const int width = row.v.cols;
    row.weighted = Matrix(keys, width);
    row.z.assign(width, 0.0f);
    for (int j = 0; j < keys; ++j)
        for (int d = 0; d < width; ++d) {
            const float w = row.weights[j] * row.v.at(j, d);
            row.weighted.data[static_cast<std::size_t>(j) * width + d] = w;
            row.z[d] += w;
        }
}

} // namespace core
