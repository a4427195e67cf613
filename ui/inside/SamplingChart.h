#pragma once
// The Inside view's last stage: how the next token is drawn. One bar per candidate token, most likely on
// top: its probability after the temperature (grey when top-k or top-p cut it), and beside it the
// renormalised probability the sampler draws with; the drawn token is marked, and the title says what each
// cut kept.

#include "core/run/Sampler.h"

#include <QWidget>

class QCustomPlot;
class QCPBars;
class QLabel;

namespace ui {

class SamplingChart : public QWidget {
    Q_OBJECT
public:
    explicit SamplingChart(QWidget* parent = nullptr);

    void setPipeline(const core::SamplingPipeline& pipeline);
    /// The line above the bars: the settings, what was kept and what was drawn.
    QString summary() const;
    QCustomPlot* plot() const { return plot_; }

private:
    int barAt(const QPoint& pos) const;

    QLabel* summary_ = nullptr;
    QCustomPlot* plot_ = nullptr;
    QCPBars* tempered_ = nullptr;
    QCPBars* cut_ = nullptr;
    QCPBars* kept_ = nullptr;
    core::SamplingPipeline pipeline_;
};

} // namespace ui
