#include "ui/positional/RotationPlot.h"

#include "core/analysis/PositionalAnalysis.h"
#include "ui/base/ColorMap.h"
#include "ui/base/PlotHelpers.h"
#include "ui/base/QCustomPlotInclude.h"

#include <QLabel>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>

namespace ui {

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr int kBands = 8;    // colours the positions are shown in
constexpr int kNumbers = 12; // positions numbered at most

} // namespace

RotationPlot::RotationPlot(QWidget* parent) : QWidget(parent) {
    auto* v = new QVBoxLayout(this);
    v->setContentsMargins(0, 0, 0, 0);
    v->setSpacing(2);
    plot_ = makePlot(QString());
    plot_->xAxis->setLabel(tr("PE(pos, 2i)"));
    plot_->yAxis->setLabel(tr("PE(pos, 2i+1)"));
    unitCircle_ = new QCPCurve(plot_->xAxis, plot_->yAxis);
    unitCircle_->setPen(QPen(QColor(150, 150, 150), 1, Qt::DashLine));
    const auto colours = ColorMap::byName(QStringLiteral("viridis"));
    for (int b = 0; b < kBands; ++b) {
        auto* band = new QCPCurve(plot_->xAxis, plot_->yAxis);
        band->setLineStyle(QCPCurve::lsNone); // chords between steps would only clutter the circle
        // Viridis's darkest to its brightest yellow-green, short of the yellow that vanishes on white.
        const QColor c = QColor::fromRgb(colours.color(0.9 * b / double(kBands - 1)));
        band->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, c, 6));
        bands_.push_back(band);
    }
    stepRays_ = new QCPCurve(plot_->xAxis, plot_->yAxis);
    stepRays_->setPen(QPen(QColor(214, 39, 40), 1.5));
    stepArc_ = new QCPCurve(plot_->xAxis, plot_->yAxis);
    stepArc_->setPen(QPen(QColor(214, 39, 40), 2));
    stepText_ = new QCPItemText(plot_);
    stepText_->setColor(QColor(214, 39, 40));
    stepText_->setFont(QFont(plot_->font().family(), 9));
    stepText_->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    stepText_->setBrush(QColor(255, 255, 255, 210)); // stays readable where it crosses a ray
    stepText_->setPadding(QMargins(2, 1, 2, 1));
    connect(plot_, &QCustomPlot::afterLayout, this, [this] { fitCircleAspect(); });
    v->addWidget(plot_, 1);
    frequencyLabel_ = new QLabel;
    frequencyLabel_->setWordWrap(true);
    rotationLabel_ = new QLabel;
    rotationLabel_->setWordWrap(true);
    rotationLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    v->addWidget(frequencyLabel_);
    v->addWidget(rotationLabel_);
}

RotationPlot::~RotationPlot() = default;

QList<int> RotationPlot::numberedPositions() const {
    QList<int> out;
    for (const auto* number : numbers_)
        out << number->text().toInt();
    return out;
}

void RotationPlot::showPair(const std::vector<float>& table, int dims, int positions, int pair, int offset,
                            bool sinusoidal) {
    const int d = dims, n = positions, i = pair;
    points_.resize(static_cast<size_t>(n) * 2);
    for (int pos = 0; pos < n; ++pos)
        for (int k = 0; k < 2; ++k)
            points_[static_cast<size_t>(pos) * 2 + k] = table[static_cast<size_t>(pos) * d + 2 * i + k];
    dims_ = d;
    positions_ = n;
    pair_ = i;
    offset_ = offset;
    sinusoidal_ = sinusoidal;

    QVector<double> px(n), py(n), t(n);
    double far = 0.0;
    for (int pos = 0; pos < n; ++pos) {
        t[pos] = pos;
        px[pos] = points_[static_cast<size_t>(pos) * 2];
        py[pos] = points_[static_cast<size_t>(pos) * 2 + 1];
        far = std::max(far, std::hypot(px[pos], py[pos]));
    }
    // Each point in its band's colour; a dozen positions at most numbered beside their points, from 0.
    for (int b = 0; b < kBands; ++b) {
        const int from = b * n / kBands, to = (b + 1) * n / kBands;
        bands_[std::size_t(b)]->setData(t.mid(from, to - from), px.mid(from, to - from),
                                        py.mid(from, to - from), true);
    }
    for (auto* item : numbers_)
        plot_->removeItem(item);
    numbers_.clear();
    // On a sinusoidal pair the numbers follow the first turn, at least 30° apart, so they read 0, 1, 2, …
    // round the circle the way the points turn (later turns would land on them); a learned pair's are
    // spread over all its positions.
    int every = std::max(1, (n + kNumbers - 1) / kNumbers);
    int last = n - 1;
    if (sinusoidal) {
        const double theta = core::sinusoidalFrequency(i, d);
        const double apart = 2 * kPi / kNumbers;
        every = std::clamp(int(std::ceil(apart / std::max(theta, 1e-12) - 1e-9)), 1, every);
        if (theta * every * (kNumbers - 1) >= 2 * kPi - apart)
            last = std::min(last, int((2 * kPi - apart) / theta));
    }
    for (int pos = 0; pos <= last && int(numbers_.size()) < kNumbers; pos += every) {
        auto* number = new QCPItemText(plot_);
        // Just outside the point, along its ray from the centre.
        const double r = std::max(std::hypot(px[pos], py[pos]), 1e-9);
        number->position->setCoords(px[pos] * (1 + 0.09 / r), py[pos] * (1 + 0.09 / r));
        number->setText(QString::number(pos));
        number->setFont(QFont(plot_->font().family(), 8));
        number->setColor(QColor(60, 60, 60));
        numbers_.push_back(number);
    }

    // A sinusoidal pair lies on the unit circle; a learned one is compared with the circle of its RMS radius.
    const double rho = sinusoidal ? 1.0 : std::max(core::pairRmsRadius(points_, 2, n, 0), 1e-12);
    QVector<double> cx, cy, ct;
    for (int j = 0; j <= 180; ++j) {
        ct.push_back(j);
        cx.push_back(rho * std::cos(2 * kPi * j / 180));
        cy.push_back(rho * std::sin(2 * kPi * j / 180));
    }
    unitCircle_->setData(ct, cx, cy, true);
    circleRadius_ = 1.12 * std::max(rho, far);

    updateRotationCheck();
    const QString sub = subscript(i);
    setPlotTitle(plot_, tr("Pair %1: (PE(pos, %2), PE(pos, %3)), %4")
                            .arg(i)
                            .arg(2 * i)
                            .arg(2 * i + 1)
                            .arg(sinusoidal ? tr("unit circle") : tr("circle of RMS radius")));
    if (sinusoidal) {
        const double theta = core::sinusoidalFrequency(i, d);
        frequencyLabel_->setText(
            tr("θ%1 = 10000^(−%2/%3) = %4 rad = %5° per position; red: k steps, "
               "PE(0) → PE(k). With the sine first the points turn clockwise; each point's colour is its "
               "position, dark at 0 to light at the last, some of them numbered.")
                .arg(sub)
                .arg(2 * i)
                .arg(d)
                .arg(theta, 0, 'g', 4)
                .arg(theta * 180 / kPi, 0, 'g', 4));
    } else {
        frequencyLabel_->setText(
            tr("Learned table: no formula for θ%1. Red: PE(0) → PE(k) on this pair; each point's colour "
               "is its position, dark at 0 to light at the last, some of them numbered.")
                .arg(sub));
    }
    plot_->replot();
}

void RotationPlot::setOffset(int offset) {
    offset_ = offset;
    updateRotationCheck();
    plot_->replot();
}

void RotationPlot::drawOffset() {
    // k steps: the rays to PE(0) and PE(k) and the arc between them. A sinusoidal pair turns clockwise by θ
    // a position (the sine first), so its arc goes clockwise by k·θ (less whole turns), past 180° too, as
    // the text says; a learned pair's has no direction of its own and takes the short way.
    const int k = offset_;
    if (positions_ <= k) {
        stepRays_->data()->clear();
        stepArc_->data()->clear();
        stepText_->setText(QString());
        return;
    }
    const auto at = [this](int pos, int c) { return double(points_[static_cast<size_t>(pos) * 2 + c]); };
    const double x0 = at(0, 0), y0 = at(0, 1), xk = at(k, 0), yk = at(k, 1);
    const double a0 = std::atan2(y0, x0), ak = std::atan2(yk, xk);
    const double turn = sinusoidal_ ? -std::fmod(k * core::sinusoidalFrequency(pair_, dims_), 2 * kPi)
                                    : std::remainder(ak - a0, 2 * kPi);
    arcDegrees_ = turn * 180 / kPi;
    stepRays_->setData({0, 1, 2}, {x0, 0, xk}, {y0, 0, yk}, true);
    const double rho = std::max(std::hypot(x0, y0), 1e-12);
    const double ra = 0.35 * rho;
    QVector<double> ax, ay, t;
    for (int j = 0; j <= 40; ++j) {
        const double a = a0 + turn * j / 40;
        t.push_back(j);
        ax.push_back(ra * std::cos(a));
        ay.push_back(ra * std::sin(a));
    }
    stepArc_->setData(t, ax, ay, true);
    const double mid = a0 + turn / 2;
    stepText_->position->setCoords(1.15 * ra * std::cos(mid), 1.15 * ra * std::sin(mid));
    if (sinusoidal_) {
        // The whole angle k·θ, which may go round more than once; the arc shows where it ends.
        const double theta = core::sinusoidalFrequency(pair_, dims_);
        stepText_->setText(tr("k = %1: k·θ = %2°").arg(k).arg(k * theta * 180 / kPi, 0, 'f', 1));
    } else {
        stepText_->setText(tr("k = %1: %2°").arg(k).arg(std::abs(turn) * 180 / kPi, 0, 'f', 1));
    }
}

void RotationPlot::updateRotationCheck() {
    drawOffset();
    // points_ holds the pair alone, so the core measurements see a two-column table and pair 0.
    const int n = positions_, k = offset_;
    const QString sub = subscript(pair_);
    if (sinusoidal_) {
        const double angle = k * core::sinusoidalFrequency(pair_, dims_);
        const auto r = core::rotationError(points_, 2, n, 0, k, angle);
        rotationError_ = r.comparisons > 0 ? r.maxError : std::numeric_limits<double>::quiet_NaN();
        rotationLabel_->setText(tr("max |PE(pos+%1) − R(%1·θ%2)·PE(pos)| = %3 over %4 positions "
                                   "(pos + %1 < %5): an exact rotation, up to float round-off.")
                                    .arg(k)
                                    .arg(sub)
                                    .arg(rotationError_, 0, 'g', 2)
                                    .arg(r.comparisons)
                                    .arg(n));
    } else {
        // The fairest test for a table with no formula: the single angle that fits best still misses.
        const double angle = core::bestRotationAngle(points_, 2, n, 0, k);
        const auto r = core::rotationError(points_, 2, n, 0, k, angle);
        const double rho = core::pairRmsRadius(points_, 2, n, 0);
        rotationError_ = r.comparisons > 0 ? r.maxError : std::numeric_limits<double>::quiet_NaN();
        rotationLabel_->setText(tr("Learned table: no exact rotation. Even the best single angle φ = %1 rad "
                                   "leaves max |PE(pos+%2) − R(φ)·PE(pos)| = %3 over %4 positions, %5× the "
                                   "pair's RMS radius %6.")
                                    .arg(angle, 0, 'g', 3)
                                    .arg(k)
                                    .arg(rotationError_, 0, 'g', 2)
                                    .arg(r.comparisons)
                                    .arg(rho > 0 ? rotationError_ / rho : 0.0, 0, 'g', 2)
                                    .arg(rho, 0, 'g', 2));
    }
}

void RotationPlot::fitCircleAspect() {
    // Equal pixels per unit on both axes, so the circle stays a circle whatever the panel's shape.
    const QRect r = plot_->axisRect()->rect();
    if (r.width() <= 0 || r.height() <= 0)
        return;
    const double R = circleRadius_;
    const double wx = r.width() >= r.height() ? R * r.width() / r.height() : R;
    const double wy = r.width() >= r.height() ? R : R * r.height() / r.width();
    plot_->xAxis->setRange(-wx, wx);
    plot_->yAxis->setRange(-wy, wy);
}

QString RotationPlot::rotationText() const {
    return rotationLabel_->text();
}

QString RotationPlot::offsetText() const {
    return stepText_->text();
}

QString RotationPlot::frequencyText() const {
    return frequencyLabel_->text();
}

} // namespace ui
