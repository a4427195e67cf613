#pragma once
// The attention on screen as figures: the detail heatmap's head (or layer mean) and the grid's heads, with
// the colour map, scale, masked cells and token labels the window shows.

#include "ui/base/ShownAttention.h"
#include "ui/export/FigureWriter.h"

#include <functional>

namespace ui {

class AttentionFigure {
public:
    /// The shown head as a matrix figure; a side longer than kMaxSide is max-pooled as the heatmap pools it.
    /// Empty (rows 0) without a snapshot of the kind.
    static MatrixFigure head(const ShownAttention& shown);
    /// Every head of the shown kind and each layer's mean; each tile pooled to at most kMaxTileSide a side.
    /// `heads` picks the columns (head numbers, core::kMeanHead for the mean); empty: every head and the
    /// mean.
    static GridFigure grid(const ShownAttention& shown, const std::vector<int>& heads = {});
    /// "all" (or empty), or a list such as "0, 2, mean": the heads a grid figure shows. False with a message
    /// naming a head this kind does not have.
    static bool parseHeads(const QString& text, int heads, std::vector<int>* out, QString* error);
    /// The title the window gives the shown head ("encoder self-attention · layer 0 · head 0").
    static QString title(const ShownAttention& shown);

    /// The figures one can export, by the names the command line uses.
    static QStringList names() {
        return {QStringLiteral("heatmap"), QStringLiteral("grid"), QStringLiteral("candidates"),
                QStringLiteral("curves")};
    }
    /// Writes the named figure: the shown head, every head of the shown kind, or the next-token chart
    /// (`candidates`). False with a message for an unknown name or nothing to draw.
    /// `plot(name)` hands out the window's plot of that name ("candidates", "curves": the positional tab's
    /// chosen dimensions), or null.
    static bool save(const QString& name, const ShownAttention& shown,
                     const std::function<QCustomPlot*(const QString&)>& plot, const FigureStyle& style,
                     const QString& path, QString* error, const std::vector<int>& gridHeads = {});

    /// Every layer × head of the shown kind (and each layer's mean) as its own figure in `dir`,
    /// `<kind>-L<l>-H<h>.<format>` (format png, svg or pdf), and all their weights in one CSV,
    /// `<kind>-all-heads.csv`. `progress(done, total)` is called after each file; returning false stops.
    /// Returns the files written; on failure -1 with a message (the files before it stay).
    static int saveAllHeads(const ShownAttention& shown, const QString& dir, const QString& format,
                            const FigureStyle& style, const std::function<bool(int, int)>& progress,
                            QString* error);

    static constexpr int kMaxSide = 640;
    static constexpr int kMaxTileSide = 64;
};

} // namespace ui
