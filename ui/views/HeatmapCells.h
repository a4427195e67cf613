#pragma once
// What the detail heatmap draws of one head (or a layer's mean over heads), computed apart from the widget:
// the weights whole where the tooltips need them, the cells max-pooled to at most a map's side, masked and
// floored for the scale, and the head's informative range. A pure function of the shown value, so the
// heatmap runs it on the window's thread for a small block and on a thread of its own for a large one.

#include "ui/base/ShownAttention.h"

#include <cstddef>
#include <utility>
#include <vector>

namespace ui {

/// The weights a scale spans: [0, 1] fixed, [kLogScaleFloor, 1] on the log scale, the head's informative
/// range [lo, hi] per head (widened a hair when the head is constant, so the gradient stays defined).
std::pair<double, double> colourRange(ScaleMode scale, float lo, float hi);

struct HeatmapCells {
    /// What they were computed from; its snapshot keeps the block the weights point into.
    ShownAttention shown;
    int layer = 0;
    int head = 0; ///< or core::kMeanHead
    int queries = 0;
    int keys = 0;
    int rows = 0; ///< the map's cells: queries and keys, or fewer when pooled
    int cols = 0;
    /// The weights shown, whole, when they are no row of the block: the mean, or a compact head expanded.
    std::vector<float> own;
    /// The weights are the block's own rows (a dense head): read them there.
    bool inBlock = false;
    /// rows × cols, row-major: what each cell is coloured by (NaN where causal attention masks it).
    std::vector<double> cells;
    /// The head's informative range (the per-head scale's), or [0, 1] at the other scales.
    float lo = 0.0f, hi = 1.0f;

    /// The weights a row at a time or whole (queries × keys), or null when a compact head is read from the
    /// block row by row.
    const float* weights(const core::AttentionBlock& block) const;

    /// What `shown` draws with its block, at most `maxSide` cells a side; empty (rows 0) without a block.
    static HeatmapCells compute(const ShownAttention& shown, int maxSide);
    /// The weights compute() reads: a head's queries × keys, or that many for each of a layer's heads.
    static std::size_t work(const ShownAttention& shown);
};

} // namespace ui
