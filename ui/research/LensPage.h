#pragma once
// The Logit lens page: the residual stream of the run on screen read at every point (after the embeddings,
// after each attention sublayer, after each MLP) through the model's own final norm and unembedding
// (core::logitLens), as a heatmap of points × positions coloured by the probability, rank or entropy of a
// followed token (by default the one the model produces next at each position), each cell labelled with
// its top token and its tooltip giving the top ten; below it, the followed token's probability against
// depth at one position. A click on a cell (or Enter on the selected one) opens that layer on the
// Attention page with the position's row marked. Beside the depth chart, the selected position's direct
// logit attribution (AttributionPanel). Computed in the background, only while the page is shown.

#include "core/analysis/LogitLens.h"
#include "core/model/AttentionBlock.h"
#include "ui/run/RunResult.h"

#include <QWidget>

#include <cstdint>
#include <utility>

class QComboBox;
class QLabel;
class QLineEdit;

namespace ui {

class AttributionPanel;
class LatestJob;
class LensDepthChart;
class MatrixChart;

class LensPage : public QWidget {
    Q_OBJECT
public:
    enum class Colour { Probability, Rank, Entropy };

    explicit LensPage(QWidget* parent = nullptr);
    ~LensPage() override;

    void setResult(const RunResultPtr& result);
    void clear();
    void setColour(Colour colour);
    /// Follows one token at every position: its text (one token of the model's vocabulary) or "#id"; an
    /// empty text follows the model's next token again. False, saying why in the status line, for a text
    /// that is no single token.
    bool followToken(const QString& text);

    /// The lens shown (empty before a first result, and for a model it cannot read).
    const core::LogitLens& shown() const { return shown_; }
    /// The cell selected: {point, position}, −1 for none. The depth chart shows its position.
    std::pair<int, int> selected() const { return selected_; }
    void select(int point, int position);
    /// Opens the selected cell's layer on the Attention page (attentionChosen).
    void openSelected();
    /// The heatmap row of a point: the model's output at the top, the embeddings at the bottom.
    int rowOf(int point) const;

    QString statusText() const;
    bool busy() const;
    MatrixChart* chart() const { return chart_; }
    LensDepthChart* depth() const { return depth_; }
    AttributionPanel* attribution() const { return attribution_; }
    /// What the tooltip of a cell says: the point, the position, the followed token and the top ten.
    QString cellTip(int point, int position) const;

Q_SIGNALS:
    void updated();
    /// Open this attention on the Attention page with the position's query row marked: the kind and layer a
    /// lens point belongs to (head −1: the head shown there now), or a head the attribution grid was
    /// clicked on.
    void attentionChosen(core::AttentionKind kind, int layer, int head, int position);

protected:
    void showEvent(QShowEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void request();
    void display();
    int pointOfRow(int row) const;

    RunResultPtr result_;
    RunResultPtr computedFor_; // the result shown_ belongs to
    int64_t followed_ = -1;    // −1: the model's next token
    int64_t computedToken_ = -1;
    core::LogitLens shown_;
    std::pair<int, int> selected_{-1, -1};
    LatestJob* job_ = nullptr;
    QComboBox* colour_ = nullptr;
    QLineEdit* token_ = nullptr;
    QLabel* status_ = nullptr;
    MatrixChart* chart_ = nullptr;
    LensDepthChart* depth_ = nullptr;
    AttributionPanel* attribution_ = nullptr;
    QWidget* body_ = nullptr; // the map and the depth chart, hidden while there is nothing to draw
};

} // namespace ui
