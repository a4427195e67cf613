#include "core/analysis/MaxPool.h"

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <vector>

namespace core {

int pooledLength(int cells, int limit) {
    return limit > 0 ? std::min(cells, limit) : cells;
}

void maxInto(const float* row, int n, float* acc) {
    // A plain element-wise map (no reduction), so the compiler vectorises it without fast-math.
    for (int k = 0; k < n; ++k)
        acc[k] = row[k] > acc[k] ? row[k] : acc[k];
}

void maxPoolRow(const float* values, int cells, int n, float* out) {
    assert(n >= 1 && n <= cells);
    for (int i = 0; i < n; ++i)
        out[i] = *std::max_element(values + binStart(i, n, cells), values + binStart(i + 1, n, cells));
}

void maxPool(int queries, int keys, const std::function<const float*(int)>& rowOf, int rows, int cols,
             float* out) {
    assert(rows >= 1 && rows <= queries && cols >= 1 && cols <= keys);
    std::vector<float> acc(static_cast<std::size_t>(keys));
    for (int r = 0; r < rows; ++r) {
        const int first = binStart(r, rows, queries), last = binStart(r + 1, rows, queries);
        const float* row = rowOf(first);
        std::copy(row, row + keys, acc.begin());
        for (int q = first + 1; q < last; ++q)
            maxInto(rowOf(q), keys, acc.data());
        maxPoolRow(acc.data(), keys, cols,
                   out + static_cast<std::size_t>(r) * static_cast<std::size_t>(cols));
    }
}

} // namespace core
