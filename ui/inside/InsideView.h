#pragma once
// The Inside page: the computation behind one row of attention weights, stage by stage, for the kind, layer
// and head the view state shows and the row of the marked query token (else the current decode step):
// 1 the layer input x after the norm, 2 Q, K, V of the head, 3 q_i ⊙ k_j, 4 the scores, their scaling,
// the mask and the softmax, 5 the weighted sum of the values, the heads through W_O into the residual, and
// how the next token is drawn. The charts are linked (hovering key j or dimension d in one marks it in all)
// and under each stage one line ties the formula to the hovered cell's own numbers.
//
// The numbers come from the worker (AnalysisController::requestInside) only while the page is visible:
// the view asks with requested() and draws what insideReady() brings back for the step on screen.

#include "core/run/InsideRow.h"
#include "ui/run/InsideResult.h"
#include "ui/run/RunResult.h"

#include <QWidget>

#include <array>

class QComboBox;
class QGroupBox;
class QLabel;
class QScrollArea;

namespace ui {

class MatrixChart;
class AnalysisController;
class InsideStages;
class SamplingChart;
class ViewState;

class InsideView : public QWidget {
    Q_OBJECT
public:
    explicit InsideView(ViewState* state, QWidget* parent = nullptr);

    /// Follows the analysis: each step shown, the rows it opens for the view, and new sampling settings
    /// (the pipeline with them is asked for again).
    void attach(AnalysisController* controller);

    /// The step on screen (null: nothing analysed).
    void setResult(const RunResultPtr& result);
    /// The worker's answer to a request; a stale one (another step, row or head) is ignored.
    void setInside(const InsideResultPtr& result);
    void setFailed(const QString& message);
    /// Asks again for what is shown (the sampling settings changed: the pipeline with them).
    void refresh();
    /// The row the view shows or waits for, from the view state, the marked token and the step.
    core::InsideQuery wanted() const;
    /// What is drawn now (null before a first answer or after the run changed).
    const InsideResultPtr& shownInside() const { return inside_; }
    /// The formula line under stage 1–5, and the heading above the charts.
    QString formulaLine(int stage) const;
    QString heading() const;
    /// Hovers key j and dimension d as the mouse does (−1 leaves either as it is).
    void hover(int key, int dim);
    MatrixChart* chart(const char* name) const;
    SamplingChart* samplingChart() const { return sampling_; }
    QComboBox* rowCombo() const { return rowCombo_; }
    /// Brings stage 1–5 into view and frames it, for a lesson pointing at it (0: no stage framed).
    void setStage(int stage);
    int stage() const { return stage_; }

Q_SIGNALS:
    void requested(const core::InsideQuery& query);

protected:
    void showEvent(QShowEvent* event) override;

private:
    /// key_, dim_ and channel_ at the shown row's most telling cells: the key with the most weight, its
    /// largest product, the largest channel of the output.
    void pickTellingCells();
    void build();
    void maybeRequest();
    void draw();
    void updateHighlights();
    void updateLines();
    void fillRowCombo();
    /// Whether r was computed on the source and target on screen (not a branch left by Back, not a step
    /// still on its way).
    bool isOfShownState(const InsideResult& r) const;

    ViewState* state_;
    RunResultPtr result_;
    InsideResultPtr inside_;
    core::InsideQuery lastRequest_{};
    RunResultPtr requestedFor_;   // the state shown when the last request went out
    int key_ = -1;                // hovered key j
    int dim_ = -1;                // hovered dimension d of the head
    int channel_ = -1;            // hovered channel c of d_model
    InsideResultPtr drawnInputs_; // the answer whose x and memory are drawn

    QLabel* heading_ = nullptr;
    QLabel* status_ = nullptr;
    QComboBox* rowCombo_ = nullptr;
    QWidget* samplingBox_ = nullptr; // the next-token stage, hidden for an encoder-only model
    MatrixChart* x_ = nullptr;
    MatrixChart* memory_ = nullptr;
    MatrixChart* q_ = nullptr;
    MatrixChart* k_ = nullptr;
    MatrixChart* v_ = nullptr;
    MatrixChart* products_ = nullptr;
    MatrixChart* scores_ = nullptr;
    MatrixChart* weighted_ = nullptr;
    MatrixChart* z_ = nullptr;
    MatrixChart* vectors_ = nullptr;
    SamplingChart* sampling_ = nullptr;
    std::array<QLabel*, 5> lines_{};
    std::array<QGroupBox*, 5> stageBoxes_{};
    InsideStages* stages_ = nullptr;
    QScrollArea* scroll_ = nullptr;
    int stage_ = 0;
};

} // namespace ui
