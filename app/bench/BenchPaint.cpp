#include "app/bench/BenchPaint.h"

#include "core/base/Errors.h"
#include "ui/base/QCustomPlotInclude.h"
#include "ui/views/AttentionGrid.h"
#include "ui/views/HeatmapView.h"

#include <QCoreApplication>
#include <QElapsedTimer>

#include <memory>

namespace {

using core::AttentionKind;
using core::AttentionSnapshot;
using SnapshotPtr = std::shared_ptr<const AttentionSnapshot>;

// The grid's and the heatmap's sizes in the window at its default 1400 × 900, with the splitter's default
// proportions and a one-line text, so a tile and a cell cover as many pixels as a user sees.
const QSize kGridSize(487, 570);
const QSize kDetailSize(599, 570);

// A replot that has not come after this long is a hang, not a slow machine.
constexpr int kReplotTimeoutMs = 120000;

AttentionKind paintedKind(const AttentionSnapshot& s) {
    return !s.cross.empty()    ? AttentionKind::Cross
           : s.decoder.empty() ? AttentionKind::Encoder
                               : AttentionKind::Decoder;
}

// The views skip a snapshot they already show, so each timed run must hand them one they do not. Between
// runs they show this stand-in of the same layers and heads with one query and one key: it costs nothing
// to show, and no second copy of a large snapshot (600 MB for GPT-2's shape at T = 1024) is needed.
SnapshotPtr standIn(const AttentionSnapshot& s, AttentionKind kind) {
    auto small = std::make_shared<AttentionSnapshot>();
    small->modelName = s.modelName;
    if (!s.srcTokens.empty())
        small->srcTokens.push_back(s.srcTokens.front());
    if (!s.tgtTokens.empty())
        small->tgtTokens.push_back(s.tgtTokens.front());
    const auto& big = s.block(kind);
    auto& block = small->block(kind);
    block.resize(big.layers, big.heads, 1, 1);
    std::fill_n(block.data.mutableData(), block.data.size(), 1.0f);
    return small;
}

// The views share ownership of what they show; the cell's snapshot outlives them, so they get a pointer
// that does not own it.
SnapshotPtr borrowed(const AttentionSnapshot& s) {
    return SnapshotPtr(&s, [](const AttentionSnapshot*) {});
}

// The row of the token being fed, which the window marks in both views for the decoder-side kinds.
int currentQuery(const AttentionSnapshot& s) {
    return static_cast<int>(s.tgtTokens.size()) - 1;
}

// Lets the event loop deliver what showing the widget queued (expose, layout, the first paint), untimed.
void settle() {
    for (int i = 0; i < 3; ++i)
        QCoreApplication::processEvents();
}

// The grid pools and colours its tiles (an image per head and per layer's mean, at most one pixel per weight)
// and paints them into the tile rectangles; repaint() does now what the next UpdateRequest would do. A block
// too large to pool within a paint is pooled in slices on timer events in the window (blank tiles until
// then); here poolAll() does all of it at once, so the time is the whole work of showing every tile.
Stat timeGrid(const AttentionSnapshot& s, AttentionKind kind, const Plan& plan) {
    ui::AttentionGrid grid;
    grid.resize(kGridSize);
    ui::ShownAttention shown{nullptr, kind};
    grid.setShown(shown);
    grid.setHighlightedQuery(currentQuery(s));
    grid.show();
    const auto small = standIn(s, kind);
    const auto big = borrowed(s);
    const auto runs = repeat(plan, [&] {
        shown.snapshot = small;
        grid.setShown(shown);
        grid.repaint();
        settle();
        const auto t0 = BenchClock::now();
        shown.snapshot = big;
        grid.setShown(shown);
        grid.poolAll();
        grid.repaint();
        return msSince(t0);
    });
    return summarize(runs);
}

// The heatmap fills its colour map in setShown and asks for a queued replot; the event loop runs it, as in
// the window, and the replot paints. A second replot that new tick labels may queue is not waited for: the
// heatmap is on screen by then.
Stat timeDetail(const AttentionSnapshot& s, AttentionKind kind, const Plan& plan) {
    ui::HeatmapView view;
    view.resize(kDetailSize);
    ui::ShownAttention shown{nullptr, kind, 0, 0};
    view.setShown(shown);
    view.setCurrentQuery(currentQuery(s));
    view.show();
    bool replotted = false;
    QObject::connect(view.plot(), &QCustomPlot::afterReplot, [&replotted] { replotted = true; });
    const auto small = standIn(s, kind);
    const auto big = borrowed(s);
    const auto showAndPaint = [&](const SnapshotPtr& snapshot) {
        replotted = false;
        shown.snapshot = snapshot;
        view.setShown(shown);
        QElapsedTimer waited;
        waited.start();
        while (!replotted) {
            if (waited.elapsed() > kReplotTimeoutMs)
                throw core::Error("the detail heatmap did not replot within " +
                                  std::to_string(kReplotTimeoutMs / 1000) + " s");
            QCoreApplication::processEvents();
        }
        // QCustomPlot repaints inside replot() unless told otherwise (phImmediateRefresh); if not, the paint
        // is forced here rather than left to the next UpdateRequest.
        if (!view.plot()->plottingHints().testFlag(QCP::phImmediateRefresh))
            view.plot()->repaint();
    };
    const auto runs = repeat(plan, [&] {
        showAndPaint(small);
        settle();
        const auto t0 = BenchClock::now();
        showAndPaint(big);
        return msSince(t0);
    });
    return summarize(runs);
}

} // namespace

std::vector<Row> measurePaint(const AttentionSnapshot& snapshot, const Plan& plan) {
    const auto kind = paintedKind(snapshot);
    if (snapshot.block(kind).empty())
        return {};
    const std::string what = kind == AttentionKind::Cross     ? "cross"
                             : kind == AttentionKind::Encoder ? "encoder self"
                                                              : "decoder self";
    return {{"paint_grid", "paint grid, every head (" + what + ")", timeGrid(snapshot, kind, plan)},
            {"paint_detail", "paint detail, one head (" + what + ")", timeDetail(snapshot, kind, plan)}};
}
