#pragma once
// Two translation models side by side on the sentence in the Source field: each one's greedy translation
// and the attention each output token was produced with (core::alignmentOf), so a learner sees how the
// seed's GRU translator and the Transformer align the same words. A Transformer side picks a layer and a
// head of its cross-attention, or the mean; a GRU has one map. Computed on a worker, newest request first,
// and only while the page is shown.

#include "core/analysis/Alignment.h"

#include <QStringList>
#include <QWidget>

#include <array>
#include <map>
#include <memory>

class QCPColorMap;
class QCPColorScale;
class QComboBox;
class QCustomPlot;
class QLabel;

namespace ui {

class ColorMap;
class LatestJob;

class AlignmentPage : public QWidget {
    Q_OBJECT
public:
    explicit AlignmentPage(QWidget* parent = nullptr);
    ~AlignmentPage() override;

    /// Offers the translation models among the built-in ones (a source side, not a classifier), the GRU
    /// translator on the left and the Transformer on the right when both are there.
    void setModelsDirectory(const QString& dir);
    /// Offers the window's model too (a folder of the user's).
    void setCurrentModel(const QString& dir);
    void setText(const QString& text);
    void setColorMap(const ColorMap& map);
    /// Picks a side's model by folder; false when it is not offered.
    bool chooseModel(int side, const QString& dir);
    /// A side's layer and head, −1 for the mean.
    void chooseHead(int side, int layer, int head);

    /// What each side shows now (empty before a first result), and the agreement line's text.
    const core::Alignment& shown(int side) const { return shown_[static_cast<std::size_t>(side)]; }
    QString agreementText() const;
    /// From a request until its result is shown (tests wait on it).
    bool busy() const;
    QCustomPlot* plot(int side) const { return sides_[static_cast<std::size_t>(side)].plot; }

Q_SIGNALS:
    void updated();

protected:
    void showEvent(QShowEvent* event) override;

private:
    struct Side {
        QComboBox* model = nullptr;
        QComboBox* layer = nullptr;
        QComboBox* head = nullptr;
        QLabel* caption = nullptr;
        QCustomPlot* plot = nullptr;
        QCPColorMap* map = nullptr;
        QCPColorScale* scale = nullptr;
        QStringList sourceLabels, outputLabels; ///< every token, thinned to the room at each layout
    };
    QWidget* buildSide(Side& side, const QString& title);
    void offerHeads(Side& side);
    void request();
    void draw(Side& side, const core::Alignment& a);

    std::array<Side, 2> sides_;
    std::array<core::Alignment, 2> shown_;
    QLabel* agreement_ = nullptr;
    QString text_;
    double agreementValue_ = -1.0;
    LatestJob* job_ = nullptr;
    std::unique_ptr<ColorMap> colors_;
    // The loaded models by folder and weights' time, shared with the worker (which alone touches it, one job
    // at a time).
    std::shared_ptr<std::map<QString, std::shared_ptr<const core::Model>>> cache_;
};

} // namespace ui
