#pragma once
// The images an AttentionGrid paints, kept apart from its layout and events: one per head of every layer
// plus the layer's mean over heads, coloured at the resolution they are shown at.

#include "core/run/AttentionSnapshot.h"
#include "ui/base/ColorMap.h"

#include <QElapsedTimer>
#include <QImage>
#include <QSize>

#include <vector>

namespace ui {

/// Tile images of one attention block. A block with more queries or keys than a tile has device pixels is
/// reduced to the tile's pixels by max pooling before it is coloured: each pixel shows the largest weight of
/// the cells it covers, so a one-cell diagonal or a single strong key stays visible in a thumbnail (a mean
/// would fade it by the pooling factor); the bins are core::binStart's, as in the detail heatmap. A block
/// that fits keeps one pixel per weight. The pooled values and the images coloured from them are kept until
/// the weights, the image size or the colouring change.
class AttentionTiles {
public:
    /// The weights to show, or nullptr for none. Not owned: the caller keeps the block alive and unchanged
    /// until it calls again. In causal attention the masked cells are left out of per-head colour ranges.
    void setBlock(const core::AttentionBlock* block, bool causal);
    /// The device pixels a tile covers; the images are pooled down to this when the block is larger.
    void setPixelSize(const QSize& pixels);
    /// Whether a pixel size has been given yet; until then a block is not pooled.
    bool hasPixelSize() const { return pixels_.isValid(); }
    void setColorMap(const ColorMap& map);
    void setScaleMode(ScaleMode mode);

    /// The image of one tile: column 0 … heads − 1 for a head, heads for the layer's mean over heads. Pools
    /// the layer and colours the image first if they are not current.
    const QImage& image(int layer, int column);
    /// Whether a layer's tiles are pooled for the current scale mode, so image() of it costs at most the
    /// colouring. Pooling a layer of GPT-2 small's shape at 2,048 tokens takes tens of milliseconds.
    bool isPooled(int layer) const;
    /// Pools a layer's pixel rows until it is done or `clock` reaches untilMs, and picks up there on the
    /// next call; true once the layer is pooled. image() finishes a layer left unfinished.
    bool poolFor(int layer, const QElapsedTimer& clock, qint64 untilMs);

    /// The image size a queries × keys block gets in tiles of `pixels`: each side as it is when it fits,
    /// else the tile's side.
    static QSize imageSize(int queries, int keys, const QSize& pixels);
    /// Causal attention pooled to rows × cols cells: per row, the first column whose keys every query of the
    /// row is kept from (cols when none is). Those cells are masked (drawn in the colour map's masked
    /// colour), not small weights. The detail heatmap uses the same rule.
    static std::vector<int> maskedFrom(int rows, int cols, int queries, int keys);

private:
    struct Tile {
        std::vector<float> values; // imageSize() of the block, row-major: the pooled (or plain) weights
        float lo = 0.0f;           // the range a per-head colour scale stretches over
        float hi = 1.0f;
        QImage image; // null until coloured
    };
    // What a layer's tiles hold: the ranges add about half again to the pooling pass, so they are gathered
    // only when the per-head scale asks for them.
    enum class Pooled { No, Values, ValuesAndRanges };

    // A layer whose pooling poolFor() left unfinished: where it stopped and the running ranges.
    struct Pending {
        int layer = -1;
        bool ranges = false;
        int nextRow = 0;
        std::vector<float> lo, hi, allLo;
    };

    void pool(int layer, bool ranges);
    bool poolRows(int layer, bool ranges, const QElapsedTimer* clock, qint64 untilMs);
    void dropImages();

    const core::AttentionBlock* block_ = nullptr;
    bool causal_ = false;
    QRgb masked_ = qRgb(0xc8, 0xc8, 0xc8);
    QSize pixels_;
    QSize size_; // imageSize() of the block in tiles of pixels_
    QVector<QRgb> lut_ = ColorMap::byName(QString()).lut();
    ScaleMode mode_ = ScaleMode::Fixed;
    std::vector<Tile> tiles_;    // layer-major, heads + 1 per layer
    std::vector<Pooled> pooled_; // per layer
    Pending pending_;
};

} // namespace ui
