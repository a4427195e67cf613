#pragma once
// Every head of every layer of one attention kind at once: a layer × head grid of small heatmaps, painted
// from QImage tiles in one widget (one plot widget per tile would not stay fluid at 12 × 12), plus a
// "mean over heads" column per layer. The images come from AttentionTiles, at the tiles' device pixels.

#include "core/analysis/HeadAnalysis.h"
#include "core/run/AttentionSnapshot.h"
#include "ui/base/ColorMap.h"
#include "ui/base/ShownAttention.h"
#include "ui/views/AttentionTiles.h"

#include <QTimer>
#include <QWidget>

#include <memory>
#include <utility>
#include <vector>

namespace ui {

class AttentionGrid : public QWidget {
    Q_OBJECT
public:
    explicit AttentionGrid(QWidget* parent = nullptr);

    /// What to show: the kind's block of the snapshot, the outlined tile (head may be core::kMeanHead), the
    /// colouring, and the heads switched off (their tiles of the kind shown crossed out). Repaints only what
    /// differs from the value shown before.
    void setShown(const ShownAttention& shown);
    const ShownAttention& shown() const { return shown_; }
    /// Pools every layer now, so the next paint draws all tiles. On screen a large block is pooled over
    /// several paints (blank tiles for a moment); a picture taken with render() or grab() needs them all.
    void poolAll();
    /// Blocks of at most this many weights (layers × heads × queries × keys) are pooled by the paint that
    /// shows them; larger ones in slices of poolBudgetMs on timer events, with blank tiles until their
    /// layer is done. 4 M weights pool in a few milliseconds here; GPT-2 small's shape at 2,048 tokens has
    /// 600 M (each of its layers takes ~100 ms). 0 defers every block (tests).
    void setPoolInPaintCells(double cells) { poolInPaintCells_ = cells; }
    static constexpr double kPoolInPaintCells = 4e6;
    /// The time one slice may spend pooling; a layer a slice leaves unfinished is picked up where it
    /// stopped. 25 ms leaves most of a 100 ms budget to the rest of the window. 0 pools one whole layer
    /// per slice (tests).
    void setPoolBudgetMs(int ms) { poolBudgetMs_ = ms; }
    static constexpr int kPoolBudgetMs = 25;
    /// The model's head scores on random repeated tokens (HeadTable), for the decoder tiles' tooltips;
    /// empty until they are computed.
    void setHeadScores(std::vector<core::HeadScores> scores) { headScores_ = std::move(scores); }
    /// A query row marked in every tile (the token being produced); -1 for none.
    void setHighlightedQuery(int query);
    /// The token marked in a strip, outlined in every tile: a query row (Horizontal) or a key column
    /// (Vertical); −1 clears.
    void setMarkedToken(Qt::Orientation orientation, int index);
    int markedIndex() const { return markIndex_; }

    int layers() const;
    int heads() const;
    /// Where a tile is painted, in widget coordinates (empty when there is no such tile).
    QRect tileRect(int layer, int head) const;
    /// The tile under a point: {layer, head}, or {-1, 0} when none.
    std::pair<int, int> tileAt(const QPoint& pos) const;
    /// What hovering a tile shows: layer, head and statistics of its weights.
    QString tileToolTip(int layer, int head) const;
    /// The text shown instead of tiles when the kind has no attention (empty when there are tiles).
    QString emptyMessage() const { return message_; }
    /// What the grid says before it has any attention (default: type a sentence); the Train tab's says the
    /// run's frames come here.
    void setNothingYetText(const QString& text);
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

Q_SIGNALS:
    void tileClicked(int layer, int head);
    /// Ctrl+click on a head's tile (not a mean): switch that head off, or back on.
    void tileToggled(int layer, int head);
    /// Keyboard navigation while the grid has focus: arrows move heads (←/→) and layers (↑/↓), PgUp/PgDn
    /// move layers.
    void navigate(int dLayer, int dHead);

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    bool event(QEvent* event) override;

private:
    void blockChanged();
    void updateGeometryCache();
    const core::AttentionBlock* block() const { return shown_.block(); }
    /// Column of a head in tiles_ and on screen: heads first, the mean last.
    int column(int head) const;
    /// The device pixels a tile covers on this widget's screen.
    QSize tilePixels() const;

    ShownAttention shown_;
    int highlightQuery_ = -1;
    Qt::Orientation markOrientation_ = Qt::Horizontal;
    int markIndex_ = -1;
    AttentionTiles tiles_;
    int poolBudgetMs_ = kPoolBudgetMs;
    double poolInPaintCells_ = kPoolInPaintCells;
    QTimer poolTimer_; // the next slice of pooling, while layers remain
    void poolSlice();
    QTimer resizeSettle_; // running while the widget's size is still changing
    QString message_;
    QString nothingYet_;
    int gap_ = 7; // between tiles: narrower when the tiles are small (updateGeometryCache)
    std::vector<core::HeadScores> headScores_;
    // Where things go, recomputed on resize and rebuild only, so painting does no layout work.
    QPoint origin_; // top-left of the first tile
    QSize tileSize_;
    int rowLabelWidth_ = 0;
    int colLabelHeight_ = 0;
};

} // namespace ui
