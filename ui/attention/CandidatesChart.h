#pragma once
// The next token at the current step as a bar chart of the distribution Step actually draws from: the
// model's probabilities after temperature, top-k and top-p (the cut tokens drawn pale, marked "cut"), the
// model's own probability behind each bar, and the token Step will take outlined. Clicking a bar or its
// label forces that token, and the decode branches from there.

#include "core/run/Sampler.h"
#include "ui/run/RunResult.h"

#include <QWidget>

class QCustomPlot;
class QCPBars;

namespace ui {

class CandidatesChart : public QWidget {
    Q_OBJECT
public:
    explicit CandidatesChart(QWidget* parent = nullptr);

    /// Shows the next-token distribution of a result as the sampling settings turn it into the draw;
    /// null clears the chart.
    void setResult(const RunResultPtr& result);
    void setSampling(const core::SamplingSettings& s);
    /// The shown tokens, most likely first: probability is the model's, sampled what the draw uses.
    const std::vector<Candidate>& candidates() const { return top_; }
    /// The token Step takes next (−1 when nothing is shown or the run has finished).
    int64_t chosen() const { return chosen_; }
    QString axisText() const;
    /// The bar's centre, and its label's, in widget coordinates (for tests); invalid when there is no such
    /// bar.
    QPoint barCenter(int index) const;
    QPoint labelCenter(int index) const;
    QCustomPlot* plot() const { return plot_; }

    static constexpr int kShown = 10;

Q_SIGNALS:
    void forceRequested(qint64 token);

private:
    void rebuild();
    void fitAxisToWidth();
    int barAt(const QPoint& plotPos) const;
    double shownValue(const Candidate& c) const;

    QCustomPlot* plot_ = nullptr;
    QString axisText_;         // the axis label before it is wrapped to the chart's width
    QCPBars* model_ = nullptr; // the model's probability, pale, behind
    QCPBars* bars_ = nullptr;  // what the draw uses
    QCPBars* chosenBar_ = nullptr;
    RunResultPtr result_;
    core::SamplingSettings sampling_;
    std::vector<Candidate> top_;
    int64_t chosen_ = -1;
    bool finished_ = false;
};

} // namespace ui
