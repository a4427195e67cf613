#include "ui/base/ColorMap.h"

#include "ui/base/QCustomPlotInclude.h"

namespace ui {

namespace {

// Stops sampled from matplotlib's maps at 0, 1/8, …, 1; linear interpolation between them stays within
// a few levels of the originals, which is below what a screen shows.
const QVector<QColor>& stopsOf(const QString& name) {
    static const QVector<QColor> viridis{
        QColor::fromRgb(0x440154u), QColor::fromRgb(0x472c7au), QColor::fromRgb(0x3b528bu),
        QColor::fromRgb(0x2c728eu), QColor::fromRgb(0x21918cu), QColor::fromRgb(0x28ae80u),
        QColor::fromRgb(0x5ec962u), QColor::fromRgb(0xaddc30u), QColor::fromRgb(0xfde725u)};
    static const QVector<QColor> magma{
        QColor::fromRgb(0x000004u), QColor::fromRgb(0x1c1044u), QColor::fromRgb(0x4f127bu),
        QColor::fromRgb(0x812581u), QColor::fromRgb(0xb5367au), QColor::fromRgb(0xe55064u),
        QColor::fromRgb(0xfb8761u), QColor::fromRgb(0xfec287u), QColor::fromRgb(0xfcfdbfu)};
    static const QVector<QColor> blues{
        QColor::fromRgb(0xf7fbffu), QColor::fromRgb(0xdeebf7u), QColor::fromRgb(0xc6dbefu),
        QColor::fromRgb(0x9ecae1u), QColor::fromRgb(0x6baed6u), QColor::fromRgb(0x4292c6u),
        QColor::fromRgb(0x2171b5u), QColor::fromRgb(0x08519cu), QColor::fromRgb(0x08306bu)};
    static const QVector<QColor> greys{QColor::fromRgb(0xffffffu), QColor::fromRgb(0x000000u)};
    static const QVector<QColor> hot{QColor::fromRgb(0x000000u), QColor::fromRgb(0xb00000u),
                                     QColor::fromRgb(0xff6000u), QColor::fromRgb(0xffd000u),
                                     QColor::fromRgb(0xffffffu)};
    if (name == QLatin1String("magma"))
        return magma;
    if (name == QLatin1String("blues"))
        return blues;
    if (name == QLatin1String("greys"))
        return greys;
    if (name == QLatin1String("hot"))
        return hot;
    return viridis;
}

QColor mix(const QColor& a, const QColor& b, double f) {
    return QColor::fromRgbF(static_cast<float>(a.redF() + (b.redF() - a.redF()) * f),
                            static_cast<float>(a.greenF() + (b.greenF() - a.greenF()) * f),
                            static_cast<float>(a.blueF() + (b.blueF() - a.blueF()) * f));
}

} // namespace

QStringList ColorMap::names() {
    return {QStringLiteral("viridis"), QStringLiteral("magma"), QStringLiteral("blues"),
            QStringLiteral("greys"), QStringLiteral("hot")};
}

ColorMap ColorMap::byName(const QString& name) {
    const auto n = names().contains(name) ? name : names().front();
    return ColorMap(n, stopsOf(n));
}

ColorMap::ColorMap(QString name, QVector<QColor> stops) : name_(std::move(name)), stops_(std::move(stops)) {
    lut_.resize(256);
    const int segments = static_cast<int>(stops_.size()) - 1;
    for (int i = 0; i < 256; ++i) {
        const double x = i / 255.0 * segments;
        const int s = qMin(static_cast<int>(x), segments - 1);
        lut_[i] = mix(stops_[s], stops_[s + 1], x - s).rgb();
    }
}

QRgb ColorMap::maskedColor() const {
    return name_ == QLatin1String("greys") ? qRgb(0xf2, 0xcf, 0xd3) : qRgb(0xc8, 0xc8, 0xc8);
}

QColor ColorMap::categorical(int j) {
    static const QRgb palette[] = {0x1f77b4, 0xff7f0e, 0x2ca02c, 0xd62728, 0x9467bd,
                                   0x8c564b, 0xe377c2, 0x7f7f7f, 0xbcbd22, 0x17becf};
    return QColor(palette[((j % 10) + 10) % 10]);
}

QCPColorGradient ColorMap::gradient() const {
    QCPColorGradient g;
    g.clearColorStops();
    const int segments = static_cast<int>(stops_.size()) - 1;
    for (int i = 0; i <= segments; ++i)
        g.setColorStopAt(static_cast<double>(i) / segments, stops_[i]);
    g.setColorInterpolation(QCPColorGradient::ciRGB);
    g.setLevelCount(256);
    g.setNanHandling(QCPColorGradient::nhNanColor); // NaN marks a masked cell (HeatmapView)
    g.setNanColor(QColor::fromRgb(maskedColor()));
    return g;
}

} // namespace ui
