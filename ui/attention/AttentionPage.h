#pragma once
// The attention page: kind and colour controls, the decoding controls, the token strips, the layer × head
// grid, the detail heatmap and the next-token chart. Its views follow the ViewState; user input on them
// goes back to the ViewState, so every view stays in step without knowing the others.

#include "core/analysis/HeadAnalysis.h"
#include "core/run/AttentionSnapshot.h"
#include "core/run/Sampler.h"
#include "ui/base/ShownAttention.h"
#include "ui/run/RunResult.h"

#include <QList>
#include <QRectF>
#include <QWidget>

#include <vector>

class QAction;
class QCustomPlot;
class QScrollArea;
class QSplitter;
class QStackedWidget;

namespace ui {

class AnalysisController;
class AttentionControls;
class AttentionGrid;
class CandidatesChart;
class ClassifierView;
class DecodePanel;
class HeatmapView;
class LengthBanner;
class LessonSpotlight;
class LinesView;
class PresentationMode;
class TokenStrip;
class ViewState;

class AttentionPage : public QWidget {
    Q_OBJECT
public:
    explicit AttentionPage(ViewState* state, QWidget* parent = nullptr);

    /// Follows the analysis (its results, and clearing when there is none) and sends it what the page's
    /// controls ask for: Step, Back, Run to end, Reset, a forced token, the sampling, reading past max_len.
    void attach(AnalysisController* controller);

    /// The kinds a model has (an encoder–decoder: encoder, decoder and cross; decoder-only: decoder
    /// self-attention), offered until a snapshot of it is shown; the current kind is kept when it is still
    /// offered.
    void setModelKinds(const std::vector<core::AttentionKind>& kinds);
    /// The kinds the selector offers: those the shown snapshot has, or the model's before a first one.
    const std::vector<core::AttentionKind>& kinds() const { return kinds_; }
    /// Shows a result of the analysis: tokens, attention, candidates and where decoding stands.
    void showResult(const RunResultPtr& result);
    /// Nothing to show (the text is empty).
    void clear();
    /// The model's head scores (HeadTable), shown in the decoder tiles' tooltips.
    void setHeadScores(const std::vector<core::HeadScores>& scores);
    /// Picks a kind in the selector when the model offers it (the View menu's Ctrl+1/2/3).
    void selectKind(core::AttentionKind kind);

    /// Step, Back, Run to end and Reset, for the Decode menu and the window's keys.
    QList<QAction*> decodeActions() const;
    /// The sampling the decode panel shows; setting it is what a user choosing it does.
    core::SamplingSettings sampling() const;
    void setSampling(const core::SamplingSettings& s);
    /// A new text is typed: the decode panel stops showing the step of the text before it.
    void expectNewRun();
    /// The heatmap's zoom (the View menu's Zoom In, Zoom Out and Whole Map).
    void zoomBy(double factor);
    void resetZoom();
    /// The heatmap's view in cells (x keys, y queries), empty while it shows the whole map; setting an empty
    /// rect shows the whole map.
    QRectF zoom() const;
    void setZoom(const QRectF& cells);
    /// A lesson's frame around a tile of the grid or a cell of the heatmap, following zooms and resizes; a
    /// negative layer or row takes it away. A framed cell gets the detail pane the room first.
    void spotlightTile(int layer, int head);
    void spotlightCell(int row, int column);
    /// While the projector mode is on, the kind and colour controls are out of sight and the grid gets
    /// about half the width.
    void joinPresentation(PresentationMode* mode);
    /// The panes' widths, saved with the window (QSplitter::saveState).
    QByteArray paneLayout() const;
    void restorePaneLayout(const QByteArray& layout);
    /// The detail heatmap computes a large block off the window's thread: true until it shows it.
    bool busy() const;
    /// The next-token chart, for File ▸ Export.
    QCustomPlot* candidatesPlot() const;

Q_SIGNALS:
    /// A short explanation for the status bar (a click that had no effect).
    void hint(const QString& text);
    /// The selector offers other kinds (a snapshot of another model family, or another model).
    void kindsChanged(const std::vector<core::AttentionKind>& kinds);
    void busyChanged(bool busy);

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    /// At least half the panes' width for the detail heatmap, when it has less.
    void giveRoomToDetail();
    void build();
    void fitStrips();
    QScrollArea* stripScroll(TokenStrip* strip);
    void follow();
    /// Offers these kinds (the model's when empty) and picks the current one, or the first.
    void offerKinds(std::vector<core::AttentionKind> kinds);
    void fitGrid(const ShownAttention& shown);
    void updateCurrentQuery();
    /// The heatmap, the lines or a classifier's answer in the detail pane, and the controls that go with it.
    void showDetail();
    void updateStrips();

    ViewState* state_;
    RunResultPtr result_;
    std::vector<core::AttentionKind> modelKinds_;
    std::vector<core::AttentionKind> kinds_;
    AttentionControls* controls_ = nullptr; // hidden in the presentation mode
    QStackedWidget* detail_ = nullptr;
    LinesView* lines_ = nullptr;
    DecodePanel* decode_ = nullptr;
    LengthBanner* banner_ = nullptr;
    TokenStrip* srcStrip_ = nullptr;
    TokenStrip* tgtStrip_ = nullptr;
    QScrollArea* srcScroll_ = nullptr;
    QScrollArea* tgtScroll_ = nullptr;
    QSplitter* splitter_ = nullptr;
    AttentionGrid* grid_ = nullptr;
    HeatmapView* heatmap_ = nullptr;
    CandidatesChart* candidates_ = nullptr;
    ClassifierView* classifier_ = nullptr;
    LessonSpotlight* tileSpot_ = nullptr;
    LessonSpotlight* cellSpot_ = nullptr;
};

} // namespace ui
