#pragma once
// Named colour maps shared by every heatmap: a 256-entry lookup table for the painted grid and a
// QCustomPlot gradient for the detail plots, built from the same stops so both views agree.

#include <QColor>
#include <QString>
#include <QStringList>
#include <QVector>

class QCPColorGradient;

namespace ui {

/// How weights map to colours: fixed [0, 1] keeps heads comparable; per-head stretches each head's range; log
/// spreads [kLogScaleFloor, 1] by orders of magnitude, so the ~1/T weights of a long input are not all the
/// darkest colour.
enum class ScaleMode { Fixed, PerHead, Log };

/// The log scale's low end: weights at or below it take the scale's first colour.
constexpr float kLogScaleFloor = 1e-4f;

class ColorMap {
public:
    /// The maps offered to users; the first (viridis) is perceptually uniform and the default.
    static QStringList names();
    /// The map of that name; an unknown name gives the default, so a stale setting cannot break the view.
    static ColorMap byName(const QString& name);

    QString name() const { return name_; }
    /// The colour of t in [0, 1] (clamped).
    QRgb color(double t) const { return lut_[qBound(0, static_cast<int>(t * 255.0 + 0.5), 255)]; }
    const QVector<QRgb>& lut() const { return lut_; }
    /// The colour of a masked cell (a future key in causal attention): a weight that is not there, so never
    /// a colour of the map itself (neutral grey; a pale rose for the grey map).
    QRgb maskedColor() const;
    QCPColorGradient gradient() const;
    /// The j-th of ten categorical colours (Tableau's: distinct on screen and for the common colour-vision
    /// deficiencies), for curves and heads told apart by colour.
    static QColor categorical(int j);

private:
    ColorMap(QString name, QVector<QColor> stops);
    QString name_;
    QVector<QColor> stops_;
    QVector<QRgb> lut_;
};

} // namespace ui
