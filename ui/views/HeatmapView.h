#pragma once
// The detail heatmap of one head (or the mean over a layer's heads): QCustomPlot colour map without
// interpolation, token labels on both axes with query rows top to bottom, a colour scale legend, and a
// hover tooltip with the exact weight.

#include "core/run/AttentionSnapshot.h"
#include "ui/base/ColorMap.h"
#include "ui/base/ShownAttention.h"

#include <QWidget>

#include <cstddef>
#include <memory>
#include <vector>

class QCustomPlot;
class QCPColorMap;
class QCPColorScale;
class QCPItemRect;
class QCPTextElement;
class QLabel;
class QStackedLayout;
class QRectF;

namespace ui {

class HeatmapZoom;
class LatestJob;
struct HeatmapCells;
class ZoomOverview;

class HeatmapView : public QWidget {
    Q_OBJECT
public:
    /// Cells a side of the colour map holds; a longer side of n tokens is max-pooled to this many with the
    /// grid's bins (core::binStart), each cell drawn n / kMaxMapSide tokens wide (tooltips still give each
    /// weight).
    static constexpr int kMaxMapSide = 640;

    explicit HeatmapView(QWidget* parent = nullptr);

    /// What to show: one head of the kind's block (head may be core::kMeanHead: the mean over the layer's
    /// heads) and its colouring. Recomputes the map only when more than the colours differ from before: at
    /// once for a block of at most inPlaceWeights() weights read, else on a thread of its own (busy() until
    /// it is shown).
    void setShown(const ShownAttention& shown);
    /// 4 M weights (the grid's kPoolInPaintCells) take a few milliseconds; a 2,048-token layer's mean over
    /// 12 heads reads 50 M. 0 computes every block off the window's thread (tests).
    void setInPlaceWeights(std::size_t weights) { inPlaceWeights_ = weights; }
    std::size_t inPlaceWeights() const { return inPlaceWeights_; }
    static constexpr std::size_t kInPlaceWeights = 4'000'000;
    bool busy() const;
    const ShownAttention& shown() const { return shown_; }
    /// A token clicked in a strip: Qt::Horizontal marks its row (a query), Qt::Vertical its column (a key);
    /// index -1 clears.
    void setMarkedToken(Qt::Orientation orientation, int index);
    /// The row of the token being produced (decoder self and cross attention); -1 for none.
    void setCurrentQuery(int query);

    /// The weight shown at (query, key); NaN outside the matrix.
    double valueAt(int query, int key) const;
    /// The text hovering that cell shows: query token, key token, exact weight (coloured by weight × value
    /// norm: the weight, the key's value norm and the share both give).
    QString cellToolTip(int query, int key) const;
    /// The lower and upper ends of the colour scale now in use.
    std::pair<double, double> colorRange() const;
    /// The text shown instead of the plot when the kind has no attention (empty while the plot shows).
    QString emptyMessage() const;
    QCustomPlot* plot() const { return plot_; }

    /// Zooms about the centre of the view (factor < 1 zooms in), as the wheel does about the pointer;
    /// the view stays inside the map. resetZoom shows the whole map again.
    void zoomBy(double factor);
    void resetZoom();
    bool isZoomed() const;
    /// The part of the map in view, in cells (x: keys, y: queries); setting it zooms there, inside the map.
    QRectF visibleCells() const;
    void setVisibleCells(const QRectF& cells);
    ZoomOverview* overview() const;
    /// What the empty view says before a first snapshot (an analysis under way); the default when empty.
    void setNothingYetText(const QString& text);

Q_SIGNALS:
    /// Keyboard navigation while the view has focus: ←/→ heads, ↑/↓ and PgUp/PgDn layers.
    void navigate(int dLayer, int dHead);
    void busyChanged(bool busy);

protected:
    void keyPressEvent(QKeyEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void rebuild();
    void showCells(HeatmapCells cells);
    void updateMarks();
    /// Labels every n-th token so tick labels never overlap; runs after each layout, when the axis rect's
    /// size is known.
    void updateTicks();
    const core::AttentionBlock* block() const { return shown_.block(); }
    /// The block the cells on screen were computed from (while a new one is computed, the old one).
    const core::AttentionBlock* drawnBlock() const { return drawn_.block(); }
    /// The cell under a plot pixel: {query, key}, or {-1, -1}.
    std::pair<int, int> cellAt(const QPoint& pos) const;
    bool showCellToolTip(const QPoint& pos, const QPoint& globalPos);

    ShownAttention shown_;
    /// What the cells, the tooltips and the labels show: shown_ once its cells are computed. It holds the
    /// snapshot weights_ points into.
    ShownAttention drawn_;
    Qt::Orientation markOrientation_ = Qt::Horizontal;
    int markIndex_ = -1;
    int currentQuery_ = -1;
    QCustomPlot* plot_ = nullptr;
    QCPColorMap* map_ = nullptr;
    QCPColorScale* scale_ = nullptr;
    QCPItemRect* markRect_ = nullptr;
    QCPItemRect* currentRect_ = nullptr;
    QCPTextElement* title_ = nullptr;
    QLabel* message_ = nullptr;
    HeatmapZoom* zoom_ = nullptr;
    QStackedLayout* stack_ = nullptr;
    std::pair<double, double> range_{0.0, 1.0};
    QString nothingYet_;
    int queries_ = 0;
    int keys_ = 0;
    const float* weights_ = nullptr; // queries_ × keys_: the block's, or ownWeights_; null: read the block
    int shownLayer_ = 0;
    int shownHead_ = 0;
    std::vector<float> ownWeights_;
    int xStep_ = 0; // tick label thinning now applied; 0 before the first layout
    int yStep_ = 0;
    bool xRotated_ = false;
    std::size_t inPlaceWeights_ = kInPlaceWeights;
    LatestJob* job_ = nullptr;
};

} // namespace ui
