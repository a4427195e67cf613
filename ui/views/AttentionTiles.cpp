#include "ui/views/AttentionTiles.h"

#include "core/analysis/MaxPool.h"

#include <QElapsedTimer>

#include <algorithm>
#include <cmath>
#include <limits>

namespace ui {

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr int kKeyChunk = 256;

// One sweep over a weight row feeds both the head's pooled pixel row and the layer's sum over heads, so the
// block is read from memory once. Plain element-wise maps (no reductions) so that the compiler vectorises
// them without fast-math.
void maxAndSum(const float* row, int keys, float* max, double* sum) {
    for (int k = 0; k < keys; ++k) {
        max[k] = row[k] > max[k] ? row[k] : max[k];
        sum[k] += static_cast<double>(row[k]);
    }
}

// Running extremes of a tile's weights for core::informativeRange's rule, gathered during the pooling pass
// rather than in a pass of their own (and for the mean, which is never held at full resolution): `lo` and
// `hi` over the keys informative rows can see (rows that see more than one key; in causal attention only the
// keys up to the query), `allLo` over every weight, the fallback. Element-wise maps like maxAndSum.
void extend(const float* w, int n, int seen, float* lo, float* hi, float* allLo) {
    for (int k = 0; k < seen; ++k) {
        lo[k] = w[k] < lo[k] ? w[k] : lo[k];
        hi[k] = w[k] > hi[k] ? w[k] : hi[k];
    }
    for (int k = 0; k < n; ++k)
        allLo[k] = w[k] < allLo[k] ? w[k] : allLo[k];
}

// Where the masked cells of a causal image start: see maskedFrom() in the header.
struct Mask {
    const std::vector<int>* from = nullptr; // per image row; null: nothing masked
    QRgb colour = 0;
};

// Each value through toUnit (a weight to [0, 1]) and then the colour map's 256 entries; masked cells in the
// map's masked colour.
template <typename ToUnit>
QImage colour(const std::vector<float>& values, const QSize& size, const QVector<QRgb>& lut, const Mask& mask,
              ToUnit toUnit) {
    QImage img(size, QImage::Format_RGB32);
    const int cols = size.width();
    for (int r = 0; r < size.height(); ++r) {
        auto* line = reinterpret_cast<QRgb*>(img.scanLine(r));
        const float* v = values.data() + static_cast<std::size_t>(r) * static_cast<std::size_t>(cols);
        const int masked = mask.from ? (*mask.from)[static_cast<std::size_t>(r)] : cols;
        for (int c = 0; c < cols; ++c)
            line[c] = c >= masked ? mask.colour
                                  : lut[qBound(0, static_cast<int>(toUnit(v[c]) * 255.0f + 0.5f), 255)];
    }
    return img;
}

QImage colourLinear(const std::vector<float>& values, const QSize& size, float lo, float hi,
                    const QVector<QRgb>& lut, const Mask& mask) {
    // A constant matrix (one key, say) has no range to stretch; show it mid-scale rather than divide by 0.
    const float span = hi > lo ? hi - lo : 0.0f;
    const float flat = hi > 0.0f ? 0.5f : 0.0f;
    return colour(values, size, lut, mask,
                  [=](float w) { return span > 0.0f ? std::clamp((w - lo) / span, 0.0f, 1.0f) : flat; });
}

// By orders of magnitude: kLogScaleFloor and below → 0, 1 → 1.
QImage colourLog(const std::vector<float>& values, const QSize& size, const QVector<QRgb>& lut,
                 const Mask& mask) {
    const float decades = -std::log10(kLogScaleFloor);
    return colour(values, size, lut, mask, [=](float w) {
        return std::clamp(std::log10(std::max(w, kLogScaleFloor)) / decades + 1.0f, 0.0f, 1.0f);
    });
}

} // namespace

std::vector<int> AttentionTiles::maskedFrom(int rows, int cols, int queries, int keys) {
    std::vector<int> from(static_cast<std::size_t>(std::max(rows, 0)), cols);
    int c = 0;
    for (int r = 0; r < rows; ++r) {
        // The last key any query of this row's bin sees; the first column whose keys all lie past it.
        const int lastVisible = core::binStart(r + 1, rows, queries) - 1 + keys - queries;
        while (c < cols && core::binStart(c, cols, keys) <= lastVisible)
            ++c;
        from[static_cast<std::size_t>(r)] = c;
    }
    return from;
}

QSize AttentionTiles::imageSize(int queries, int keys, const QSize& pixels) {
    // Before the first layout there is no tile size to pool to.
    if (pixels.width() <= 0 || pixels.height() <= 0)
        return {keys, queries};
    return {core::pooledLength(keys, pixels.width()), core::pooledLength(queries, pixels.height())};
}

void AttentionTiles::setBlock(const core::AttentionBlock* block, bool causal) {
    block_ = block != nullptr && !block->empty() ? block : nullptr;
    causal_ = causal;
    tiles_.clear();
    pooled_.clear();
    pending_ = Pending{};
    if (block_ == nullptr)
        return;
    size_ = imageSize(block_->queries, block_->keys, pixels_);
    tiles_.resize(static_cast<std::size_t>(block_->layers) * static_cast<std::size_t>(block_->heads + 1));
    pooled_.assign(static_cast<std::size_t>(block_->layers), Pooled::No);
}

void AttentionTiles::setPixelSize(const QSize& pixels) {
    pixels_ = pixels;
    if (block_ == nullptr)
        return;
    // A block that fits keeps its size whatever the tile's, so resizing costs nothing then.
    const QSize size = imageSize(block_->queries, block_->keys, pixels_);
    if (size == size_)
        return;
    size_ = size;
    std::fill(pooled_.begin(), pooled_.end(), Pooled::No);
    pending_ = Pending{};
    dropImages();
}

void AttentionTiles::setColorMap(const ColorMap& map) {
    lut_ = map.lut();
    masked_ = map.maskedColor();
    dropImages();
}

void AttentionTiles::setScaleMode(ScaleMode mode) {
    if (mode == mode_)
        return;
    mode_ = mode;
    dropImages();
}

void AttentionTiles::dropImages() {
    for (Tile& t : tiles_)
        t.image = QImage();
}

const QImage& AttentionTiles::image(int layer, int column) {
    static const QImage none;
    if (block_ == nullptr || layer < 0 || layer >= block_->layers || column < 0 || column > block_->heads)
        return none;
    const bool perHead = mode_ == ScaleMode::PerHead;
    if (pooled_[static_cast<std::size_t>(layer)] < (perHead ? Pooled::ValuesAndRanges : Pooled::Values))
        pool(layer, perHead);
    Tile& t = tiles_[static_cast<std::size_t>(layer) * static_cast<std::size_t>(block_->heads + 1) +
                     static_cast<std::size_t>(column)];
    if (t.image.isNull()) {
        // Future keys of causal attention are masked, not weak: painted apart from a weight of 0.
        const auto from = causal_ ? maskedFrom(size_.height(), size_.width(), block_->queries, block_->keys)
                                  : std::vector<int>{};
        const Mask mask{causal_ ? &from : nullptr, masked_};
        t.image = perHead                   ? colourLinear(t.values, size_, t.lo, t.hi, lut_, mask)
                  : mode_ == ScaleMode::Log ? colourLog(t.values, size_, lut_, mask)
                                            : colourLinear(t.values, size_, 0.0f, 1.0f, lut_, mask);
    }
    return t.image;
}

bool AttentionTiles::isPooled(int layer) const {
    if (block_ == nullptr || layer < 0 || layer >= block_->layers)
        return true;
    return pooled_[static_cast<std::size_t>(layer)] >=
           (mode_ == ScaleMode::PerHead ? Pooled::ValuesAndRanges : Pooled::Values);
}

void AttentionTiles::pool(int layer, bool ranges) {
    poolRows(layer, ranges, nullptr, 0);
}

bool AttentionTiles::poolFor(int layer, const QElapsedTimer& clock, qint64 untilMs) {
    if (isPooled(layer))
        return true;
    return poolRows(layer, mode_ == ScaleMode::PerHead, &clock, untilMs);
}

bool AttentionTiles::poolRows(int layer, bool ranges, const QElapsedTimer* clock, qint64 untilMs) {
    const core::AttentionBlock& b = *block_;
    const int heads = b.heads;
    const int keys = b.keys;
    const int rows = size_.height();
    const int cols = size_.width();
    const auto stride = static_cast<std::size_t>(keys);
    const auto lanes = static_cast<std::size_t>(heads + 1) * stride; // a row of keys per head and the mean
    Tile* tiles = &tiles_[static_cast<std::size_t>(layer) * static_cast<std::size_t>(heads + 1)];
    Pending& pend = pending_;
    if (pend.layer != layer || pend.ranges != ranges) {
        for (int t = 0; t <= heads; ++t) {
            tiles[t].values.resize(static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols));
            tiles[t].image = QImage();
        }
        pend.layer = layer;
        pend.ranges = ranges;
        pend.nextRow = 0;
        pend.lo.assign(ranges ? lanes : 0, kInf);
        pend.hi.assign(ranges ? lanes : 0, -kInf);
        pend.allLo.assign(ranges ? lanes : 0, kInf);
    }
    // Per pixel row: the element-wise max over its query rows for each head and for the mean, which is then
    // pooled across the key bins. The mean of a query row is made from the heads' rows as they are read;
    // max-pooling it is not the max of the heads' pooled values. Weights are never negative, so a max that
    // starts at 0 is the max of the row with its masked zeros, and the chunks of keys a triangular block
    // leaves out are skipped: half the reading of a long decoder block.
    std::vector<float> rowMax(lanes);
    // A compact block's rows are expanded once per query, a head each, then read a chunk at a time.
    std::vector<std::vector<float>> scratch(static_cast<std::size_t>(heads));
    std::vector<const float*> rowsOf(static_cast<std::size_t>(heads)); // each head's row of the query
    float* lo = pend.lo.data();
    float* hi = pend.hi.data();
    float* allLo = pend.allLo.data();
    for (int r = pend.nextRow; r < rows; ++r) {
        std::fill(rowMax.begin(), rowMax.end(), 0.0f);
        const int qEnd = core::binStart(r + 1, rows, b.queries);
        for (int q = core::binStart(r, rows, b.queries); q < qEnd; ++q) {
            const int visible = causal_ ? std::min(q + 1, keys) : keys;
            const int stored = b.storedKeys(q); // all keys, unless a compact causal block left some out
            for (int t = 0; t < heads; ++t)
                rowsOf[static_cast<std::size_t>(t)] =
                    b.row(layer, t, q, scratch[static_cast<std::size_t>(t)]);
            // A chunk of keys at a time keeps the running sums and maxima in L1 while every head passes
            // over them; a whole row of each would not fit at T = 1024.
            for (int k0 = 0; k0 < keys; k0 += kKeyChunk) {
                const int n = std::min(kKeyChunk, keys - k0);
                const int seen = visible > 1 ? std::clamp(visible - k0, 0, n) : 0;
                if (k0 >= stored) {
                    // Keys a triangular block does not store: 0 for every head and the mean.
                    if (ranges)
                        for (int t = 0; t <= heads; ++t) {
                            float* a =
                                allLo + static_cast<std::size_t>(t) * stride + static_cast<std::size_t>(k0);
                            for (int k = 0; k < n; ++k)
                                a[k] = std::min(a[k], 0.0f);
                        }
                    continue;
                }
                double sum[kKeyChunk] = {};
                float mean[kKeyChunk];
                for (int t = 0; t <= heads; ++t) {
                    const std::size_t at =
                        static_cast<std::size_t>(t) * stride + static_cast<std::size_t>(k0);
                    const float* wt = mean;
                    if (t < heads) {
                        wt = rowsOf[static_cast<std::size_t>(t)] + k0;
                        maxAndSum(wt, n, rowMax.data() + at, sum);
                    } else {
                        // Summed in double and divided as core::meanOverHeads does, so the mean tile shows
                        // exactly the weights its tooltip and the detail view speak of.
                        for (int k = 0; k < n; ++k)
                            mean[k] = static_cast<float>(sum[k] / heads);
                        core::maxInto(mean, n, rowMax.data() + at);
                    }
                    if (ranges)
                        extend(wt, n, seen, lo + at, hi + at, allLo + at);
                }
            }
        }
        for (int t = 0; t <= heads; ++t) {
            core::maxPoolRow(rowMax.data() + static_cast<std::size_t>(t) * stride, keys, cols,
                             tiles[t].values.data() +
                                 static_cast<std::size_t>(r) * static_cast<std::size_t>(cols));
        }
        pend.nextRow = r + 1;
        if (clock != nullptr && r + 1 < rows && clock->elapsed() >= untilMs)
            return false;
    }
    if (ranges) {
        for (int t = 0; t <= heads; ++t) {
            const auto first = static_cast<std::ptrdiff_t>(static_cast<std::size_t>(t) * stride);
            const auto last = first + static_cast<std::ptrdiff_t>(stride);
            Tile& tile = tiles[t];
            tile.lo = *std::min_element(pend.lo.begin() + first, pend.lo.begin() + last);
            tile.hi = *std::max_element(pend.hi.begin() + first, pend.hi.begin() + last);
            if (tile.lo > tile.hi) {
                // No row saw more than one key. Every weight is in some pixel, so the pooled maxima hold the
                // largest.
                tile.lo = *std::min_element(pend.allLo.begin() + first, pend.allLo.begin() + last);
                tile.hi = *std::max_element(tile.values.begin(), tile.values.end());
            }
        }
    }
    pooled_[static_cast<std::size_t>(layer)] = ranges ? Pooled::ValuesAndRanges : Pooled::Values;
    pend = Pending{};
    return true;
}

} // namespace ui
