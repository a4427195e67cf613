#pragma once
// One figure for a paper, not the page with its buttons: a heatmap, a grid of heads or a plot, drawn on
// a white background at a chosen font size, with an optional title, as PNG (at a chosen DPI), SVG or PDF.
// Heatmap cells are vector rectangles in every format: an image in a PDF would be stored as JPEG by Qt's PDF
// engine (smoothed, and viridis's yellow turned pink on small tiles). Written atomically.

#include "ui/base/ColorMap.h"

#include <QRectF>
#include <QString>
#include <QStringList>

#include <vector>

class QCustomPlot;

namespace ui {

struct FigureStyle {
    double fontPt = 9.0; ///< labels; the title is 1.3 times larger
    QString title;       ///< drawn above the figure when not empty
    int dpi = 300;       ///< PNG only; SVG and PDF are in points
};

/// A matrix of values coloured by a map: a head's weights, a positional table.
struct MatrixFigure {
    int rows = 0, cols = 0;
    std::vector<float> values; ///< row-major; NaN marks a masked cell (drawn in the map's masked colour)
    QStringList rowLabels, colLabels; ///< may be empty; thinned when they would overlap
    QString rowAxis, colAxis, barLabel;
    double lo = 0.0, hi = 1.0; ///< the colour range
    bool log = false;          ///< colours by log10 between lo (> 0) and hi
    ColorMap map = ColorMap::byName(QString());

    /// The colour a value is drawn in.
    QRgb color(float v) const;
};

/// Tiles of matrices in rows and columns (layers × heads and their mean), one colour scale.
struct GridFigure {
    std::vector<MatrixFigure> tiles;  ///< row-major, rowLabels.size() × colLabels.size()
    QStringList rowLabels, colLabels; ///< "L0" …, "H0" … "mean"
};

class FigureWriter {
public:
    /// The format follows the suffix (.png, .svg, .pdf); anything else is refused. False with a message.
    static bool write(const MatrixFigure& figure, const FigureStyle& style, const QString& path,
                      QString* error);
    static bool write(const GridFigure& figure, const FigureStyle& style, const QString& path,
                      QString* error);
    /// A plot as its own figure (vector in SVG and PDF), at the style's font size.
    static bool write(QCustomPlot* plot, const FigureStyle& style, const QString& path, QString* error);

    /// Where the cell (row, col) of a matrix figure lies, in points from the figure's top left: for tests
    /// that read a rendered figure back.
    static QRectF cellRect(const MatrixFigure& figure, const FigureStyle& style, int row, int col);
    /// The figure's size in points.
    static QSizeF size(const MatrixFigure& figure, const FigureStyle& style);
};

} // namespace ui
