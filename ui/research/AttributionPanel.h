#pragma once
// Direct logit attribution on the Logit lens page: which heads and MLPs wrote the followed token at the
// selected position (core::directLogitAttribution). A layer × head grid coloured by each head's share of the
// token's logit (diverging: blue lowers it, red raises it), bars for the embeddings, each MLP and the biases
// and norms together, and for the component under the mouse the tokens it promotes and suppresses most. A
// click on a head opens it on the Attention page (the Inside page follows) with the position's row marked.
// Computed in the background, the newest request replacing any waiting.

#include "core/analysis/Attribution.h"
#include "core/model/AttentionBlock.h"
#include "ui/run/RunResult.h"

#include <QStringList>
#include <QWidget>

#include <cstdint>

class QCPBars;
class QCustomPlot;
class QLabel;

namespace ui {

class LatestJob;
class MatrixChart;

class AttributionPanel : public QWidget {
    Q_OBJECT
public:
    explicit AttributionPanel(QWidget* parent = nullptr);
    ~AttributionPanel() override;

    /// Splits the logit of `token` at `position` of the run in result; nothing when it is already shown.
    void request(const RunResultPtr& result, int position, int64_t token);
    void clear();

    const core::Attribution& shown() const { return shown_; }
    bool busy() const;
    QString statusText() const;
    MatrixChart* heads() const { return heads_; }
    QCustomPlot* bars() const { return barsPlot_; }
    /// The grid's row of a layer's self- or cross-attention heads; −1 when it has none.
    int rowOf(core::AttentionKind kind, int layer) const;
    /// What the tooltip of a head says: its share and the tokens it promotes and suppresses.
    QString headTip(int row, int head) const;

    static constexpr int kExtremes = 5; ///< tokens promoted and suppressed shown per component

Q_SIGNALS:
    void updated();
    /// Open this head on the Attention page with the position's query row marked.
    void headChosen(core::AttentionKind kind, int layer, int head, int position);

private:
    void display();
    /// The component of a grid cell, or null.
    const core::AttributionComponent* headAt(int row, int head) const;
    QString componentTip(const core::AttributionComponent& c) const;
    QString tokenText(int64_t id) const;

    RunResultPtr result_, computedFor_;
    int position_ = -1;
    int64_t token_ = -1;
    core::Attribution shown_;
    LatestJob* job_ = nullptr;
    QLabel* status_ = nullptr;
    MatrixChart* heads_ = nullptr;
    QCustomPlot* barsPlot_ = nullptr;
    QCPBars* bars_ = nullptr;
    std::vector<const core::AttributionComponent*> barParts_; ///< what each bar stands for (null: a sum)
    QStringList barLabels_;
    // The grid's rows: which attention of which layer each is.
    std::vector<std::pair<core::AttentionKind, int>> rows_;
};

} // namespace ui
