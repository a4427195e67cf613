#pragma once
// Max pooling of attention weights for a picture with fewer pixels or cells than the matrix has weights:
// the grid's tiles and the detail heatmap reduce a long side with the same bins, so a lone strong weight
// shows at full strength in both (a mean would fade it by the pooling factor).

#include <functional>

namespace core {

/// The bins a side of `cells` cells is shown with: every cell while they fit in `limit`, else `limit`.
/// A limit of 0 or less sets none.
int pooledLength(int cells, int limit);

/// Where bin i of n over `cells` cells starts: bin i covers [floor(i·cells/n), floor((i+1)·cells/n)). With
/// 1 ≤ n ≤ cells no bin is empty and widths differ by at most one cell; with n == cells each bin is one cell,
/// so a matrix that fits keeps one cell per weight.
inline int binStart(int i, int n, int cells) {
    return static_cast<int>(static_cast<long long>(i) * cells / n);
}

/// acc[k] = max(acc[k], row[k]) for k < n: the running maximum over the rows of a bin.
void maxInto(const float* row, int n, float* acc);

/// Pools `cells` values into n bins (1 ≤ n ≤ cells): out[i] is the largest value of bin i.
void maxPoolRow(const float* values, int cells, int n, float* out);

/// Max-pools a queries × keys matrix into rows × cols cells (1 ≤ rows ≤ queries, 1 ≤ cols ≤ keys), row-major
/// into out (rows · cols values): each cell is the largest weight of its query bin × key bin. rowOf(q) gives
/// query q's `keys` weights, read before the next call (so it may expand a compact row into a scratch
/// buffer).
void maxPool(int queries, int keys, const std::function<const float*(int)>& rowOf, int rows, int cols,
             float* out);

} // namespace core
