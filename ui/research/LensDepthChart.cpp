#include "ui/research/LensDepthChart.h"

#include "ui/base/ColorMap.h"
#include "ui/base/PlotHelpers.h"
#include "ui/base/QCustomPlotInclude.h"

#include <QVBoxLayout>

#include <cmath>

namespace ui {

namespace {

// Past this many positions the faint lines are a grey sheet: only the chosen one is drawn.
constexpr int kFaintLines = 128;

} // namespace

LensDepthChart::LensDepthChart(QWidget* parent) : QWidget(parent) {
    plot_ = makePlot(tr("The followed token's probability against depth"));
    plot_->setParent(this);
    plot_->setObjectName(QStringLiteral("lensDepthPlot"));
    plot_->setMinimumHeight(150);
    plot_->setMinimumWidth(240);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_);
    plot_->yAxis->setRange(0, 1.02);
    plot_->yAxis->setLabel(tr("probability"));
    plot_->yAxis->ticker()->setTickCount(3);
    setToolTip(tr("One line per position: the probability the stream gives the followed token at each point "
                  "of the pass. The strong line is the position selected (hover a column of the map, or move "
                  "with the arrow keys)."));
    connect(plot_, &QCustomPlot::afterLayout, this, [this] {
        if (setTokenTicks(plot_, points_, {}))
            plot_->replot(QCustomPlot::rpQueuedReplot);
    });
}

void LensDepthChart::clear() {
    logprob_.clear();
    points_.clear();
    tokens_.clear();
    followed_.clear();
    position_ = -1;
    redraw();
}

void LensDepthChart::setLens(const core::LogitLens& lens, const QStringList& pointLabels,
                             const QStringList& tokenLabels, const QStringList& followedLabels) {
    logprob_ = lens.logprob;
    points_ = pointLabels;
    tokens_ = tokenLabels;
    followed_ = followedLabels;
    const int positions = static_cast<int>(lens.tokens.size());
    if (position_ < 0 || position_ >= positions)
        position_ = positions - 1;
    redraw();
}

void LensDepthChart::setPosition(int position) {
    if (position == position_ || position < 0 || position >= tokens_.size())
        return;
    position_ = position;
    redraw();
}

QVector<double> LensDepthChart::shownLine() const {
    QVector<double> y;
    if (position_ < 0)
        return y;
    for (const auto& point : logprob_)
        y << std::exp(double(point[std::size_t(position_)]));
    return y;
}

void LensDepthChart::redraw() {
    plot_->clearGraphs();
    const int positions = static_cast<int>(tokens_.size());
    QVector<double> x;
    for (int p = 0; p < static_cast<int>(logprob_.size()); ++p)
        x << p;
    const auto line = [&](int position) {
        QVector<double> y;
        for (const auto& point : logprob_)
            y << std::exp(double(point[std::size_t(position)]));
        auto* g = plot_->addGraph();
        g->setData(x, y, true);
        return g;
    };
    if (positions <= kFaintLines)
        for (int p = 0; p < positions; ++p)
            if (p != position_)
                line(p)->setPen(QPen(QColor(0, 0, 0, 40), 1));
    if (position_ >= 0 && position_ < positions) {
        auto* g = line(position_);
        g->setPen(QPen(ColorMap::categorical(0), 2.5));
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 5));
        setPlotTitle(plot_, tr("P(\u201c%1\u201d) by depth at \u201c%2\u201d (%3)")
                                .arg(followed_.value(position_), tokens_.value(position_))
                                .arg(position_));
    } else {
        setPlotTitle(plot_, tr("The followed token's probability against depth"));
    }
    plot_->xAxis->setRange(-0.3, std::max<double>(1.0, double(x.size()) - 0.7));
    setTokenTicks(plot_, points_, {});
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace ui
