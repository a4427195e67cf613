#pragma once
// The positional-encodings lab for the loaded model: the position × dimension table, curves of chosen
// dimensions, position-to-position similarity, and the rotation property PE(pos+k) = R(kθ_i)·PE(pos).

#include "ui/base/ColorMap.h"

#include <QString>
#include <QVector>
#include <QWidget>

#include <memory>
#include <vector>

namespace core {
class Model;
}

class QCPColorMap;
class QCPColorScale;
class QCustomPlot;
class QLabel;
class QStackedWidget;

namespace ui {

class CurvePlot;
class LatestJob;
class PositionalControls;
class RotationPlot;

class PositionalView : public QWidget {
    Q_OBJECT
public:
    explicit PositionalView(QWidget* parent = nullptr);
    ~PositionalView() override;

    /// Shows the model's table (the target side's for decoder-only models); a model without a table
    /// (rope, none) gets an explanation instead of plots.
    void setModel(std::shared_ptr<const core::Model> model);
    void setColorMap(const ColorMap& map);

    // The controls, settable from code (a saved layout, tests); each moves its widget too.
    /// Encoder–decoder models: true shows the source (encoder) table, false the target (decoder) one.
    void setSourceSide(bool source);
    /// How many positions every plot shows, clamped to the table's rows.
    void setPositions(int positions);
    /// Dimensions to draw as curves, e.g. "0, 1, 6, 7" or "0-3, 8"; out-of-range entries are ignored.
    void setCurveDims(const QString& dims);
    void setCosineSimilarity(bool cosine);
    /// The (2i, 2i+1) pair of the rotation panel.
    void setPair(int pair);
    /// The offset k of the rotation check.
    void setOffset(int offset);

    bool sourceSide() const { return source_; }
    int positions() const { return positions_; }
    int pair() const { return pair_; }
    int offset() const { return offset_; }

    /// True when the model has no table and the explanation is shown instead of the plots.
    bool showsExplanation() const;
    QString explanation() const;
    /// Cells of the table heatmap: (dims, positions).
    QSize tableCells() const;
    /// The value the table heatmap shows at (pos, dim).
    double tableValueAt(int pos, int dim) const;
    /// The value the similarity heatmap shows at (a, b).
    double similarityAt(int a, int b) const;
    /// The similarity of the positions shown is still being computed (on a thread of its own).
    bool busy() const;
    int curveCount() const;
    /// The dimensions the curves now draw, in the order typed.
    QVector<int> curveDims() const { return curveDims_; }
    /// The measured max |PE(pos+k) − R(kθ_i)·PE(pos)| the rotation label shows (NaN when none).
    double rotationError() const;
    QString rotationText() const;
    QString frequencyText() const;
    /// The rotation panel's arc label (the offset k and its angle), the note under the curves about curves
    /// too fast for whole positions, and the words beside Positions on where its range ends.
    QString offsetText() const;
    QString curveNoteText() const;
    QString positionsLimitText() const;

    QCustomPlot* tablePlot() const { return tablePlot_; }
    QCustomPlot* curvePlot() const;
    QCustomPlot* similarityPlot() const { return similarityPlot_; }
    QCustomPlot* rotationPlot() const;

Q_SIGNALS:
    void busyChanged(bool busy);

private:
    void buildPlots(QWidget* grid);
    void loadTable();
    void updateAll();
    void updateTable();
    void updateCurves();
    void updateSimilarity();
    void showSimilarity(const std::vector<double>& s, int n, bool cosine);
    void updateRotation();
    bool sinusoidal() const;
    int dims() const;
    int rows() const;

    std::shared_ptr<const core::Model> model_;
    std::vector<float> table_; // rows × dims, row-major, of the side shown
    ColorMap colorMap_ = ColorMap::byName(QString());
    bool source_ = false;
    int positions_ = 0;
    int pair_ = 0;
    int offset_ = 1;
    bool cosine_ = true;
    QVector<int> curveDims_;

    QStackedWidget* stack_ = nullptr;
    QLabel* explanation_ = nullptr;
    PositionalControls* controls_ = nullptr;

    QCustomPlot* tablePlot_ = nullptr;
    QCPColorMap* tableMap_ = nullptr;
    QCPColorScale* tableScale_ = nullptr;
    CurvePlot* curves_ = nullptr;
    QCustomPlot* similarityPlot_ = nullptr;
    QCPColorMap* similarityMap_ = nullptr;
    QCPColorScale* similarityScale_ = nullptr;
    RotationPlot* rotation_ = nullptr;
    LatestJob* similarityJob_ = nullptr;
};

} // namespace ui
