#pragma once
// The Rollout page: what each output position's final state draws from each input token once every layer's
// mixing is composed (core::attentionRollout), or the maximum flow through the same layered graph
// (core::attentionFlow, inputs up to 64 tokens): a heatmap of outputs × inputs, and a bar over the inputs for
// the position being decoded now. Computed in the background, only while the page is shown; flow shows its
// progress and can be cancelled.

#include "core/analysis/Rollout.h"
#include "ui/run/RunResult.h"

#include <QStringList>
#include <QWidget>

#include <atomic>
#include <memory>
#include <vector>

class QComboBox;
class QCPBars;
class QCustomPlot;
class QLabel;
class QProgressBar;
class QPushButton;

namespace ui {

class LatestJob;
class MatrixChart;

class RolloutPage : public QWidget {
    Q_OBJECT
public:
    enum class Method { Rollout, Flow };

    explicit RolloutPage(QWidget* parent = nullptr);
    ~RolloutPage() override;

    void setResult(const RunResultPtr& result);
    void clear();
    /// The kind and the method; computed again when shown.
    void choose(core::AttentionKind kind, Method method);
    /// Stops a flow under way; the page keeps what it showed.
    void cancel();

    /// What is shown (empty before a first result or while the kind is not available).
    const core::Rollout& shown() const { return shown_; }
    QString statusText() const;
    bool busy() const;
    MatrixChart* chart() const { return chart_; }
    QCustomPlot* bars() const { return barsPlot_; }

Q_SIGNALS:
    void updated();
    /// From the flow's thread, queued to this one.
    void progressed(int done, int total);

protected:
    void showEvent(QShowEvent* event) override;

private:
    void request();
    void display(const core::Rollout& r);
    void offerKinds();

    RunResultPtr result_;
    RunResultPtr computedFor_; // the result shown() belongs to
    core::Rollout shown_;
    LatestJob* job_ = nullptr;
    std::shared_ptr<std::atomic<bool>> stop_;
    QComboBox* kind_ = nullptr;
    QComboBox* method_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QPushButton* cancel_ = nullptr;
    QLabel* status_ = nullptr;
    MatrixChart* chart_ = nullptr;
    QCustomPlot* barsPlot_ = nullptr;
    QCPBars* bars_ = nullptr;
    QStringList barLabels_; ///< every key, thinned to the room at each layout
};

} // namespace ui
