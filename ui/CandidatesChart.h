#pragma once
// The most likely next tokens at the current step as a bar chart; clicking a bar forces that token, and
// the decode branches from there.

#include "ui/RunResult.h"

#include <QWidget>

class QCustomPlot;
class QCPBars;

namespace ui {

class CandidatesChart : public QWidget {
    Q_OBJECT
public:
    explicit CandidatesChart(QWidget* parent = nullptr);

    void setCandidates(const std::vector<Candidate>& top, bool finished);
    const std::vector<Candidate>& candidates() const { return top_; }
    /// The bar's centre in widget coordinates (for tests); invalid when there is no such bar.
    QPoint barCenter(int index) const;
    QCustomPlot* plot() const { return plot_; }

Q_SIGNALS:
    void forceRequested(qint64 token);

private:
    int barAt(const QPoint& plotPos) const;

    QCustomPlot* plot_ = nullptr;
    QCPBars* bars_ = nullptr;
    std::vector<Candidate> top_;
    bool finished_ = false;
};

} // namespace ui
