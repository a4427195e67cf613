#pragma once
// An attention-pooling classifier's answer, token by token: the class and its probability; the attention
// weight of every token as a bar (with, on request, the padding of a training batch: its share of the
// softmax before the mask, and 0 after); each token's push toward the predicted class (its exact share of
// the logits, core::PoolingDetail); and the BiLSTM's outputs the scores were computed from. Hovering a token
// gives its score before softmax, weight, shares and state.

#include "core/run/AttentionSnapshot.h"

#include <QWidget>

#include <memory>

class QCPAxisRect;
class QCPBars;
class QCPColorMap;
class QCustomPlot;
class QLabel;
class QSpinBox;

namespace ui {

class ColorMap;

class ClassifierView : public QWidget {
    Q_OBJECT
public:
    explicit ClassifierView(QWidget* parent = nullptr);

    /// Shows a classifier's snapshot (one whose `pooled` is filled); null or another family's clears.
    void setSnapshot(std::shared_ptr<const core::AttentionSnapshot> snapshot);
    void setColorMap(const ColorMap& map);
    /// Shows the text as one row of a batch padded to this many tokens (0 or fewer than the text: none).
    void setPaddedWidth(int width);
    int paddedWidth() const;

    /// The header's words ("spam 99.9%  ·  ham 0.1%"), the tooltip a token would show, and the token index
    /// at a point of the plot (−1 outside any token), for tests and the status bar.
    QString headline() const;
    QString tokenTip(int index) const;
    int tokenAt(const QPoint& plotPos) const;
    QCustomPlot* plot() const { return plot_; }
    /// Heights of the drawn bars: the weights (after the mask; padding 0), and the weights before it.
    QVector<double> weightBars() const;
    QVector<double> beforeMaskBars() const;

Q_SIGNALS:
    /// A token was clicked (to mark it across the views, as a strip click does).
    void tokenClicked(int index);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void build();
    void rebuild();

    std::shared_ptr<const core::AttentionSnapshot> snap_;
    QLabel* headline_ = nullptr;
    QSpinBox* pad_ = nullptr;
    QCustomPlot* plot_ = nullptr;
    QCPAxisRect* weightsRect_ = nullptr;
    QCPAxisRect* pushRect_ = nullptr;
    QCPAxisRect* statesRect_ = nullptr;
    QCPBars* before_ = nullptr;  // the softmax over the padded row, before the mask: pale, behind
    QCPBars* weights_ = nullptr; // after the mask and renormalisation
    QCPBars* padding_ = nullptr; // the padding's share before the mask, grey
    QCPBars* toward_ = nullptr;  // pushes toward the predicted class
    QCPBars* against_ = nullptr; // pushes away from it
    QCPColorMap* states_ = nullptr;
    std::unique_ptr<ColorMap> colors_;
};

} // namespace ui
