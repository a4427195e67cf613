#include "ui/export/FigureWriter.h"

#include "ui/base/QCustomPlotInclude.h"
#include "ui/export/Exporter.h"

#include <QBuffer>
#include <QFileInfo>
#include <QImage>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSvgGenerator>

#include <algorithm>
#include <cmath>
#include <functional>

// Units: points (1/72 inch) throughout; a PNG scales them by dpi / 72.

namespace ui {

namespace {

constexpr double kGap = 4.0;
constexpr double kBarWidth = 10.0;
constexpr int kBarTicks = 5;
constexpr int kPlotWidth = 420, kPlotHeight = 320;

QFont figureFont(double pt) {
    // A pixel-sized font is measured and drawn in the painter's units, which are points on every device
    // here, so the layout measured once holds for PNG, SVG and PDF alike.
    QFont f(QStringLiteral("DejaVu Sans"));
    f.setPixelSize(std::max(1, static_cast<int>(std::lround(pt))));
    return f;
}

double widest(const QStringList& labels, const QFontMetricsF& fm) {
    double w = 0.0;
    for (const auto& s : labels)
        w = std::max(w, fm.horizontalAdvance(s));
    return w;
}

// How many labels to skip so that neighbours do not overlap: every step-th is drawn.
int labelStep(double cell, double lineHeight) {
    return std::max(1, static_cast<int>(std::ceil(lineHeight * 1.05 / std::max(cell, 1e-9))));
}

struct Layout {
    double cell = 10.0;
    QRectF title, matrix, bar;
    double rowLabelWidth = 0.0, colLabelHeight = 0.0, barTickWidth = 0.0;
    QSizeF size;
};

Layout layoutOf(const MatrixFigure& m, const FigureStyle& s) {
    Layout l;
    const QFontMetricsF fm(figureFont(s.fontPt));
    const double line = fm.height();
    l.cell = std::clamp(360.0 / std::max({m.rows, m.cols, 1}), 2.0, 24.0);
    l.rowLabelWidth = widest(m.rowLabels, fm);
    l.colLabelHeight = widest(m.colLabels, fm);
    const double axisLine = line + kGap;
    const double left = kGap + (m.rowAxis.isEmpty() ? 0.0 : axisLine) + l.rowLabelWidth + kGap;
    const double titleH = s.title.isEmpty() ? 0.0 : QFontMetricsF(figureFont(s.fontPt * 1.3)).height() + kGap;
    const double top = kGap + titleH;
    l.title = QRectF(kGap, kGap, 0, titleH);
    l.matrix = QRectF(left, top, l.cell * m.cols, l.cell * m.rows);
    QStringList ticks;
    for (int i = 0; i < kBarTicks; ++i)
        ticks << QString::number(
            m.log ? std::pow(10.0,
                             std::log10(m.lo) + i * (std::log10(m.hi) - std::log10(m.lo)) / (kBarTicks - 1))
                  : m.lo + i * (m.hi - m.lo) / (kBarTicks - 1),
            'g', 3);
    l.barTickWidth = widest(ticks, fm);
    l.bar = QRectF(l.matrix.right() + 2 * kGap, top, kBarWidth, l.matrix.height());
    const double right =
        l.bar.right() + kGap + l.barTickWidth + (m.barLabel.isEmpty() ? 0.0 : axisLine) + kGap;
    const double bottom =
        l.matrix.bottom() + kGap + l.colLabelHeight + (m.colAxis.isEmpty() ? 0.0 : axisLine) + kGap;
    l.size = QSizeF(right, bottom);
    l.title.setWidth(right - 2 * kGap);
    return l;
}

// The cells as rectangles, runs of one colour merged: vectors a viewer draws unsmoothed at any zoom.
void paintCells(QPainter& p, const MatrixFigure& m, const QRectF& area) {
    const double cw = area.width() / std::max(m.cols, 1), ch = area.height() / std::max(m.rows, 1);
    // Each rectangle reaches a little under its right and lower neighbours, which are drawn after it: an
    // anti-aliasing renderer (rsvg, a PDF viewer) would otherwise show hairline seams between cells.
    const double over = std::min(0.3, 0.1 * std::min(cw, ch));
    p.setPen(Qt::NoPen);
    p.setRenderHint(QPainter::Antialiasing, false); // no seams between neighbouring cells
    for (int r = 0; r < m.rows; ++r) {
        int c = 0;
        while (c < m.cols) {
            const QRgb colour = m.color(m.values[std::size_t(r) * std::size_t(m.cols) + std::size_t(c)]);
            int end = c + 1;
            while (end < m.cols &&
                   m.color(m.values[std::size_t(r) * std::size_t(m.cols) + std::size_t(end)]) == colour)
                ++end;
            const bool lastCol = end == m.cols, lastRow = r + 1 == m.rows;
            p.fillRect(QRectF(area.left() + c * cw, area.top() + r * ch,
                              (end - c) * cw + (lastCol ? 0.0 : over), ch + (lastRow ? 0.0 : over)),
                       QColor(colour));
            c = end;
        }
    }
    p.setRenderHint(QPainter::Antialiasing, true);
}

void paintBar(QPainter& p, const MatrixFigure& m, const Layout& l, const QFont& font) {
    // The bar is cells too (a gradient would be an image in some viewers).
    const int steps = 128;
    p.setPen(Qt::NoPen);
    p.setRenderHint(QPainter::Antialiasing, false);
    for (int i = 0; i < steps; ++i) {
        const double t = (i + 0.5) / steps;
        const QRgb c = m.map.color(1.0 - t);
        p.fillRect(QRectF(l.bar.left(), l.bar.top() + l.bar.height() * i / steps, l.bar.width(),
                          l.bar.height() / steps + (i + 1 < steps ? 0.3 : 0.0)),
                   QColor(c));
    }
    p.setRenderHint(QPainter::Antialiasing, true);
    p.setPen(QPen(Qt::black, 0.5));
    p.setBrush(Qt::NoBrush);
    p.drawRect(l.bar);
    p.setFont(font);
    const QFontMetricsF fm(font);
    for (int i = 0; i < kBarTicks; ++i) {
        const double t = double(i) / (kBarTicks - 1);
        const double v = m.log ? std::pow(10.0, std::log10(m.lo) + t * (std::log10(m.hi) - std::log10(m.lo)))
                               : m.lo + t * (m.hi - m.lo);
        const double y = l.bar.bottom() - t * l.bar.height();
        p.drawLine(QPointF(l.bar.right(), y), QPointF(l.bar.right() + 2, y));
        p.drawText(QRectF(l.bar.right() + kGap, y - fm.height() / 2, l.barTickWidth + 2, fm.height()),
                   Qt::AlignLeft | Qt::AlignVCenter, QString::number(v, 'g', 3));
    }
    if (!m.barLabel.isEmpty()) {
        p.save();
        p.translate(l.bar.right() + kGap + l.barTickWidth + kGap + fm.height() / 2, l.bar.center().y());
        p.rotate(90);
        p.drawText(QRectF(-l.bar.height() / 2, -fm.height() / 2, l.bar.height(), fm.height()),
                   Qt::AlignCenter, m.barLabel);
        p.restore();
    }
}

void paintMatrix(QPainter& p, const MatrixFigure& m, const FigureStyle& s, const Layout& l) {
    const QFont font = figureFont(s.fontPt);
    const QFontMetricsF fm(font);
    if (!s.title.isEmpty()) {
        p.setFont(figureFont(s.fontPt * 1.3));
        p.setPen(Qt::black);
        p.drawText(l.title, Qt::AlignHCenter | Qt::AlignVCenter, s.title);
    }
    paintCells(p, m, l.matrix);
    p.setPen(QPen(Qt::black, 0.5));
    p.setBrush(Qt::NoBrush);
    p.drawRect(l.matrix);
    p.setFont(font);
    const int rowStep = labelStep(l.cell, fm.height()), colStep = labelStep(l.cell, fm.height());
    for (int r = 0; r < std::min<int>(m.rows, m.rowLabels.size()); r += rowStep)
        p.drawText(QRectF(l.matrix.left() - kGap - l.rowLabelWidth,
                          l.matrix.top() + r * l.cell + l.cell / 2 - fm.height() / 2, l.rowLabelWidth,
                          fm.height()),
                   Qt::AlignRight | Qt::AlignVCenter, m.rowLabels[r]);
    for (int c = 0; c < std::min<int>(m.cols, m.colLabels.size()); c += colStep) {
        p.save();
        p.translate(l.matrix.left() + c * l.cell + l.cell / 2, l.matrix.bottom() + kGap);
        p.rotate(90);
        p.drawText(QRectF(0, -fm.height() / 2, l.colLabelHeight, fm.height()),
                   Qt::AlignLeft | Qt::AlignVCenter, m.colLabels[c]);
        p.restore();
    }
    if (!m.colAxis.isEmpty())
        p.drawText(QRectF(l.matrix.left(), l.matrix.bottom() + kGap + l.colLabelHeight + kGap,
                          l.matrix.width(), fm.height()),
                   Qt::AlignCenter, m.colAxis);
    if (!m.rowAxis.isEmpty()) {
        p.save();
        p.translate(kGap + fm.height() / 2, l.matrix.center().y());
        p.rotate(-90);
        p.drawText(QRectF(-l.matrix.height() / 2, -fm.height() / 2, l.matrix.height(), fm.height()),
                   Qt::AlignCenter, m.rowAxis);
        p.restore();
    }
    paintBar(p, m, l, font);
}

// Paints `paint` on a white page of `size` points in the path's format and writes it atomically.
bool writeWith(const QSizeF& size, const FigureStyle& style, const QString& path,
               const std::function<void(QCPPainter&)>& paint, QString* error) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    const QRectF page(QPointF(0, 0), size);
    if (suffix == QLatin1String("png")) {
        const double scale = style.dpi / 72.0;
        const QSize px(static_cast<int>(std::ceil(size.width() * scale)),
                       static_cast<int>(std::ceil(size.height() * scale)));
        if (style.dpi < 10 || style.dpi > 2400 || qint64(px.width()) * px.height() > 400'000'000) {
            if (error)
                *error =
                    QObject::tr("a figure of %1 × %2 pixels at %3 DPI is out of range (10 to 2400 DPI, at "
                                "most 400 million pixels)")
                        .arg(px.width())
                        .arg(px.height())
                        .arg(style.dpi);
            return false;
        }
        QImage image(px, QImage::Format_RGB32);
        image.fill(Qt::white);
        image.setDotsPerMeterX(static_cast<int>(std::lround(style.dpi / 0.0254)));
        image.setDotsPerMeterY(static_cast<int>(std::lround(style.dpi / 0.0254)));
        {
            QCPPainter p(&image); // QCustomPlot draws only through its own painter
            p.setRenderHint(QPainter::TextAntialiasing);
            p.scale(scale, scale);
            paint(p);
        }
        image.save(&buffer, "PNG");
    } else if (suffix == QLatin1String("svg")) {
        QSvgGenerator svg;
        svg.setOutputDevice(&buffer);
        svg.setResolution(72);
        svg.setSize(size.toSize());
        svg.setViewBox(page);
        svg.setTitle(style.title);
        QCPPainter p(&svg);
        p.setMode(QCPPainter::pmVectorized);
        p.fillRect(page, Qt::white);
        paint(p);
    } else if (suffix == QLatin1String("pdf")) {
        QPdfWriter pdf(&buffer);
        pdf.setResolution(72);
        pdf.setPageSize(QPageSize(size, QPageSize::Point));
        pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
        pdf.setTitle(style.title);
        pdf.setCreator(QStringLiteral("attnscope"));
        QCPPainter p(&pdf);
        p.setMode(QCPPainter::pmVectorized);
        p.fillRect(page, Qt::white);
        paint(p);
    } else {
        if (error)
            *error = QObject::tr("%1: a figure is written as .png, .svg or .pdf").arg(path);
        return false;
    }
    buffer.close();
    return Exporter::writeBytes(path, bytes, error);
}

} // namespace

QRgb MatrixFigure::color(float v) const {
    if (std::isnan(v))
        return map.maskedColor();
    double t;
    if (log)
        t = (std::log10(std::max(double(v), lo)) - std::log10(lo)) / (std::log10(hi) - std::log10(lo));
    else
        t = (v - lo) / (hi - lo);
    return map.color(std::clamp(t, 0.0, 1.0));
}

QRectF FigureWriter::cellRect(const MatrixFigure& figure, const FigureStyle& style, int row, int col) {
    const auto l = layoutOf(figure, style);
    return QRectF(l.matrix.left() + col * l.cell, l.matrix.top() + row * l.cell, l.cell, l.cell);
}

QSizeF FigureWriter::size(const MatrixFigure& figure, const FigureStyle& style) {
    return layoutOf(figure, style).size;
}

bool FigureWriter::write(const MatrixFigure& figure, const FigureStyle& style, const QString& path,
                         QString* error) {
    const auto l = layoutOf(figure, style);
    return writeWith(
        l.size, style, path, [&](QCPPainter& p) { paintMatrix(p, figure, style, l); }, error);
}

bool FigureWriter::write(const GridFigure& g, const FigureStyle& style, const QString& path, QString* error) {
    const int rows = g.rowLabels.size(), cols = g.colLabels.size();
    if (rows * cols != static_cast<int>(g.tiles.size()) || g.tiles.empty()) {
        if (error)
            *error = QObject::tr("no heads to draw");
        return false;
    }
    const QFont font = figureFont(style.fontPt);
    const QFontMetricsF fm(font);
    const double tile = std::clamp(560.0 / std::max(rows, cols), 36.0, 120.0);
    const double rowLabelW = widest(g.rowLabels, fm) + kGap;
    const double titleH =
        style.title.isEmpty() ? 0.0 : QFontMetricsF(figureFont(style.fontPt * 1.3)).height() + kGap;
    const QPointF origin(kGap + rowLabelW, kGap + titleH + fm.height() + kGap);
    // The bar of the first tile's scale, beside the tiles (one scale for all: the grid's fixed or log scale).
    MatrixFigure barOnly = g.tiles.front();
    Layout bar = layoutOf(barOnly, style);
    // Square cells: a tile keeps its matrix's aspect inside a tile × tile square; a row of tiles is as tall
    // as its tallest.
    std::vector<double> rowTop(std::size_t(rows) + 1, origin.y());
    for (int r = 0; r < rows; ++r) {
        double h = 0.0;
        for (int c = 0; c < cols; ++c) {
            const auto& m = g.tiles[std::size_t(r) * std::size_t(cols) + std::size_t(c)];
            h = std::max(h, tile / std::max({m.rows, m.cols, 1}) * m.rows);
        }
        rowTop[std::size_t(r) + 1] = rowTop[std::size_t(r)] + h + kGap;
    }
    const double gridW = cols * (tile + kGap), gridH = rowTop.back() - origin.y();
    bar.bar = QRectF(origin.x() + gridW + kGap, origin.y(), kBarWidth, gridH - kGap);
    const QSizeF size(bar.bar.right() + kGap + bar.barTickWidth + fm.height() + 2 * kGap,
                      origin.y() + gridH + kGap);
    const auto paint = [&](QCPPainter& p) {
        if (!style.title.isEmpty()) {
            p.setFont(figureFont(style.fontPt * 1.3));
            p.setPen(Qt::black);
            p.drawText(QRectF(kGap, kGap, size.width() - 2 * kGap, titleH), Qt::AlignCenter, style.title);
        }
        p.setFont(font);
        p.setPen(Qt::black);
        for (int c = 0; c < cols; ++c)
            p.drawText(QRectF(origin.x() + c * (tile + kGap), origin.y() - fm.height() - kGap / 2, tile,
                              fm.height()),
                       Qt::AlignCenter, g.colLabels[c]);
        for (int r = 0; r < rows; ++r) {
            p.setFont(font);
            p.setPen(Qt::black);
            const double top = rowTop[std::size_t(r)], height = rowTop[std::size_t(r) + 1] - top - kGap;
            p.drawText(QRectF(kGap, top, rowLabelW - kGap, height), Qt::AlignRight | Qt::AlignVCenter,
                       g.rowLabels[r]);
            for (int c = 0; c < cols; ++c) {
                const auto& m = g.tiles[std::size_t(r) * std::size_t(cols) + std::size_t(c)];
                const double cell = tile / std::max({m.rows, m.cols, 1});
                const QRectF area(origin.x() + c * (tile + kGap), top, cell * m.cols, cell * m.rows);
                paintCells(p, m, area);
                p.setPen(QPen(QColor(0x80, 0x80, 0x80), 0.3));
                p.setBrush(Qt::NoBrush);
                p.drawRect(area);
            }
        }
        paintBar(p, barOnly, bar, font);
    };
    return writeWith(size, style, path, paint, error);
}

bool FigureWriter::write(QCustomPlot* plot, const FigureStyle& style, const QString& path, QString* error) {
    // The plot at its on-screen size in points, its fonts at the style's size for the time of the drawing.
    const QFont font = figureFont(style.fontPt);
    struct Saved {
        QCPAxis* axis;
        QFont label, ticks;
    };
    std::vector<Saved> saved;
    for (auto* axis : plot->axisRect()->axes()) {
        saved.push_back({axis, axis->labelFont(), axis->tickLabelFont()});
        axis->setLabelFont(font);
        axis->setTickLabelFont(font);
    }
    const double titleH =
        style.title.isEmpty() ? 0.0 : QFontMetricsF(figureFont(style.fontPt * 1.3)).height() + kGap;
    // The legend in the figure's font, two entries a row, so no name is cut at the figure's width.
    const QFont legendFont = plot->legend->font();
    const int legendWrap = plot->legend->wrap();
    plot->legend->setFont(figureFont(style.fontPt * 0.9));
    plot->legend->setWrap(2);
    plot->legend->setFillOrder(plot->legend->fillOrder(), true); // rearranged now, not for the next entry
    // A figure's proportions, not the panel's (a tall narrow column beside the heatmap).
    const int w = kPlotWidth, h = kPlotHeight;
    const QSizeF size(w, h + titleH);
    // Laid out at the figure's size, twice: what fits itself to the plot's width before a replot (the
    // candidates' ticks and label) measures the layout of the replot before.
    const QRect screenViewport = plot->viewport();
    plot->setViewport(QRect(0, 0, w, h));
    plot->replot(QCustomPlot::rpImmediateRefresh);
    plot->replot(QCustomPlot::rpImmediateRefresh);
    const bool ok = writeWith(
        size, style, path,
        [&](QCPPainter& p) {
            if (!style.title.isEmpty()) {
                p.setFont(figureFont(style.fontPt * 1.3));
                p.setPen(Qt::black);
                p.drawText(QRectF(0, kGap, size.width(), titleH), Qt::AlignCenter, style.title);
            }
            p.translate(0, titleH);
            plot->toPainter(&p, w, h);
        },
        error);
    plot->setViewport(screenViewport);
    for (const auto& s : saved) {
        s.axis->setLabelFont(s.label);
        s.axis->setTickLabelFont(s.ticks);
    }
    plot->legend->setFont(legendFont);
    plot->legend->setWrap(legendWrap);
    plot->legend->setFillOrder(plot->legend->fillOrder(), true);
    plot->replot();
    return ok;
}

} // namespace ui
