#include "ui/views/HeatmapCells.h"

#include "core/analysis/AttentionStats.h"
#include "core/analysis/MaxPool.h"
#include "ui/base/ColorMap.h"
#include "ui/views/AttentionTiles.h"

#include <algorithm>
#include <limits>
#include <tuple>

namespace ui {

std::pair<double, double> colourRange(ScaleMode scale, float lo, float hi) {
    if (scale == ScaleMode::Fixed)
        return {0.0, 1.0};
    if (scale == ScaleMode::Log)
        return {kLogScaleFloor, 1.0};
    if (hi > lo)
        return {lo, hi};
    // A constant head has no spread to stretch; a tiny range around it keeps the gradient defined.
    return {lo - 1e-6, hi + 1e-6};
}

const float* HeatmapCells::weights(const core::AttentionBlock& block) const {
    if (!own.empty())
        return own.data();
    return inBlock ? block.row(layer, head, 0) : nullptr;
}

std::size_t HeatmapCells::work(const ShownAttention& shown) {
    const auto* b = shown.block();
    if (b == nullptr)
        return 0;
    const std::size_t one = std::size_t(b->queries) * std::size_t(b->keys);
    return shown.head == core::kMeanHead ? one * std::size_t(std::max(b->heads, 1)) : one;
}

HeatmapCells HeatmapCells::compute(const ShownAttention& shown, int maxSide) {
    HeatmapCells out;
    out.shown = shown;
    const auto* b = shown.block();
    if (b == nullptr)
        return out;
    out.layer = std::clamp(shown.layer, 0, b->layers - 1);
    out.head = std::clamp(shown.head, core::kMeanHead, b->heads - 1);
    out.queries = b->queries;
    out.keys = b->keys;
    out.cols = core::pooledLength(out.keys, maxSide);
    out.rows = core::pooledLength(out.queries, maxSide);
    const bool pooled = out.cols < out.keys || out.rows < out.queries;
    const bool perHead = shown.scale == ScaleMode::PerHead;
    // A log scale has no 0: the cells hold at least its floor (the tooltips read the weights themselves).
    const bool log = shown.scale == ScaleMode::Log;
    // The weights shown, whole: the block's own for a dense head, else the mean or an expanded compact
    // head, kept for the tooltips. A compact head shown pooled at the fixed scale is read a row at a time
    // instead (16 MB and ~10 ms saved at 2,048 tokens), and its tooltips read the block.
    if (out.head == core::kMeanHead)
        out.own = core::meanOverHeads(*b, out.layer);
    else if (!b->compact())
        out.inBlock = true;
    else if (!pooled || perHead)
        b->head(out.layer, out.head, out.own);
    const float* whole = out.weights(*b);
    std::vector<float> scratch;
    const auto rowOf = [&](int q) {
        return whole != nullptr ? whole + std::size_t(q) * std::size_t(out.keys)
                                : b->row(out.layer, out.head, q, scratch);
    };
    // Up to maxSide cells a side the map holds every weight. A longer side is max-pooled to that many cells
    // with the grid's bins (the strongest weight of each bin stays visible): the map spans the same token
    // coordinates either way, and colouring 4 M cells of a 2,048-token head cost the window ~80 ms a change.
    std::vector<float> values(std::size_t(out.rows) * std::size_t(out.cols));
    core::maxPool(out.queries, out.keys, rowOf, out.rows, out.cols, values.data());
    // Future keys of causal attention are masked, not weak: NaN, which the gradient paints in the colour
    // map's masked colour (the grid's rule, AttentionTiles::maskedFrom).
    const auto masked = shown.causal() ? AttentionTiles::maskedFrom(out.rows, out.cols, out.queries, out.keys)
                                       : std::vector<int>(std::size_t(out.rows), out.cols);
    out.cells.resize(values.size());
    for (int r = 0; r < out.rows; ++r)
        for (int c = 0; c < out.cols; ++c) {
            const std::size_t i = std::size_t(r) * std::size_t(out.cols) + std::size_t(c);
            out.cells[i] = c >= masked[std::size_t(r)] ? std::numeric_limits<double>::quiet_NaN()
                           : log                       ? std::max(values[i], kLogScaleFloor)
                                                       : values[i];
        }
    // Only the per-head scale needs the head's range.
    if (perHead)
        std::tie(out.lo, out.hi) = core::informativeRange(whole, out.queries, out.keys, shown.causal());
    return out;
}

} // namespace ui
