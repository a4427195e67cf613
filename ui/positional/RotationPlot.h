#pragma once
// One (2i, 2i+1) pair of a positional table drawn as points (PE(pos, 2i), PE(pos, 2i+1)) on a circle,
// with the angle one position turns and a measurement of how exactly PE(pos+k) = R(kθ_i)·PE(pos) holds.

#include <QList>
#include <QString>
#include <QWidget>

#include <vector>

class QCPCurve;
class QCPItemText;
class QCustomPlot;
class QLabel;

namespace ui {

class RotationPlot : public QWidget {
    Q_OBJECT
public:
    explicit RotationPlot(QWidget* parent = nullptr);
    ~RotationPlot() override;

    /// Draws pair `pair` of the first `positions` rows of `table` (row-major, `dims` columns) and measures
    /// the rotation by `offset`. A sinusoidal table is set against the unit circle and θ_i's formula; any
    /// other against the circle of the pair's RMS radius and the angle that fits best.
    void showPair(const std::vector<float>& table, int dims, int positions, int pair, int offset,
                  bool sinusoidal);
    /// Measures the rotation again for another offset k; the circle is unchanged.
    void setOffset(int offset);

    /// The measured max |PE(pos+k) − R(kθ_i)·PE(pos)| the label shows (NaN when no position was compared).
    double rotationError() const { return rotationError_; }
    QString rotationText() const;
    QString frequencyText() const;
    /// The label on the red arc: the offset k and the angle it turns.
    QString offsetText() const;
    /// The red arc's signed turn in degrees, counter-clockwise positive: a sinusoidal pair's is −(k·θ mod
    /// 360°).
    double arcDegrees() const { return arcDegrees_; }
    QCustomPlot* plot() const { return plot_; }
    /// The positions numbered beside their points, in order (tests).
    QList<int> numberedPositions() const;

private:
    void updateRotationCheck();
    void drawOffset();
    void fitCircleAspect();

    // Only the shown pair's two columns, positions × 2: all the rotation check reads, and cheap to keep.
    std::vector<float> points_;
    int pair_ = 0;
    int dims_ = 0; // of the whole table, for θ_i's formula
    int positions_ = 0;
    int offset_ = 1;
    bool sinusoidal_ = false;
    double rotationError_ = 0.0;
    double circleRadius_ = 1.0;

    QCustomPlot* plot_ = nullptr;
    QCPCurve* unitCircle_ = nullptr;
    // The pair's points in bands of positions, each band a colour from dark (position 0) to light (the
    // last): a curve has one colour, and which point is which position is what the circle teaches.
    std::vector<QCPCurve*> bands_;
    std::vector<QCPItemText*> numbers_; ///< some positions' numbers beside their points
    QCPCurve* stepArc_ = nullptr;
    double arcDegrees_ = 0.0;
    QCPCurve* stepRays_ = nullptr;
    QCPItemText* stepText_ = nullptr;
    QLabel* frequencyLabel_ = nullptr;
    QLabel* rotationLabel_ = nullptr;
};

} // namespace ui
