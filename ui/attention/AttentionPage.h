#pragma once
// The attention page: kind and colour controls, the decoding controls, the token strips, the layer × head
// grid, the detail heatmap and the next-token chart. Its views follow the ViewState; user input on them
// goes back to the ViewState, so every view stays in step without knowing the others.

#include "core/analysis/HeadAnalysis.h"
#include "core/run/AttentionSnapshot.h"
#include "ui/base/ShownAttention.h"
#include "ui/run/RunResult.h"

#include <QWidget>

#include <vector>

class QCheckBox;
class QComboBox;
class QLabel;
class QScrollArea;
class QSplitter;
class QStackedWidget;

namespace ui {

class AttentionGrid;
class CandidatesChart;
class ClassifierView;
class DecodePanel;
class HeatmapView;
class LengthBanner;
class LinesView;
class TokenStrip;
class ViewState;

class AttentionPage : public QWidget {
    Q_OBJECT
public:
    explicit AttentionPage(ViewState* state, QWidget* parent = nullptr);

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

    DecodePanel* decodePanel() const { return decode_; }
    CandidatesChart* candidates() const { return candidates_; }
    AttentionGrid* grid() const { return grid_; }
    QComboBox* colorMapCombo() const { return colorMap_; }
    QSplitter* splitter() const { return splitter_; }
    HeatmapView* heatmap() const { return heatmap_; }
    ClassifierView* classifierView() const { return classifier_; }
    LengthBanner* lengthBanner() const { return banner_; }
    /// The kind and colour controls above the decode panel (hidden in the presentation mode).
    QWidget* controlsRow() const { return controlsRow_; }

Q_SIGNALS:
    /// A short explanation for the status bar (a click that had no effect).
    void hint(const QString& text);
    /// The selector offers other kinds (a snapshot of another model family, or another model).
    void kindsChanged(const std::vector<core::AttentionKind>& kinds);
    /// Ctrl+click on a tile: switch that head of the shown kind off, or back on.
    void headToggled(const core::HeadRef& head);

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
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
    QComboBox* kind_ = nullptr;
    QComboBox* colorMap_ = nullptr;
    QCheckBox* perHead_ = nullptr;
    QCheckBox* logScale_ = nullptr;
    QCheckBox* linesCheck_ = nullptr;
    QCheckBox* valueWeighted_ = nullptr;
    QLabel* ablated_ = nullptr; // how many heads are off, while any are
    QStackedWidget* detail_ = nullptr;
    LinesView* lines_ = nullptr;
    DecodePanel* decode_ = nullptr;
    LengthBanner* banner_ = nullptr;
    QWidget* controlsRow_ = nullptr;
    TokenStrip* srcStrip_ = nullptr;
    TokenStrip* tgtStrip_ = nullptr;
    QScrollArea* srcScroll_ = nullptr;
    QScrollArea* tgtScroll_ = nullptr;
    QSplitter* splitter_ = nullptr;
    AttentionGrid* grid_ = nullptr;
    HeatmapView* heatmap_ = nullptr;
    CandidatesChart* candidates_ = nullptr;
    ClassifierView* classifier_ = nullptr;
};

} // namespace ui
