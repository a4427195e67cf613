#pragma once
// The "Heads" page: every decoder self-attention head of the model scored on random token sequences given
// twice (<bos> R R), in a table sorted by any column: induction and previous-token scores, weight on the
// first token, entropy, distance. The scores describe the model, not the typed text, so they are computed
// once per model (off the GUI thread) and again only when R or the number of sequences changes.

#include "core/analysis/HeadAnalysis.h"

#include <QWidget>

#include <memory>
#include <vector>

class QLabel;
class QPushButton;
class QSpinBox;
class QStandardItemModel;
class QTableView;

namespace core {
class Model;
}

namespace ui {

class LatestJob;

class HeadTable : public QWidget {
    Q_OBJECT
public:
    /// Table columns, in order.
    enum Column { Layer, Head, Induction, PreviousToken, FirstToken, Entropy, Distance, ColumnCount };

    explicit HeadTable(QWidget* parent = nullptr);
    ~HeadTable() override;

    /// The model whose heads to score. Scoring starts when the page is shown or ensureScores() asks, so
    /// opening a model is not slowed by work nobody looks at yet.
    void setModel(std::shared_ptr<const core::Model> model);
    /// Starts scoring in the background unless the current model's scores are there or on their way (a
    /// newer model or request replaces a running one).
    void ensureScores();
    /// Sets R and the number of sequences, then scores again.
    void setSettings(int repeatLength, int sequences);
    /// The scores shown, layer-major (empty while computing or without a model).
    const std::vector<core::HeadScores>& scores() const { return scores_; }
    QTableView* view() const { return view_; }
    bool computing() const;
    QString statusText() const;

Q_SIGNALS:
    /// New scores are in the table (empty when they were cleared).
    void scoresChanged(const std::vector<core::HeadScores>& scores);
    /// A row was double-clicked or Enter pressed on it: show that head.
    void headActivated(int layer, int head);

protected:
    void showEvent(QShowEvent* event) override;

private:
    void recompute();
    void finish(std::vector<core::HeadScores> scores, const QString& error);
    void fill();

    std::shared_ptr<const core::Model> model_;
    std::vector<core::HeadScores> scores_;
    LatestJob* job_ = nullptr;
    bool stale_ = false; // the model changed and nobody has asked for its scores yet
    QString error_;
    QLabel* status_ = nullptr;
    QSpinBox* repeat_ = nullptr;
    QSpinBox* sequences_ = nullptr;
    QPushButton* recompute_ = nullptr;
    QStandardItemModel* items_ = nullptr;
    QTableView* view_ = nullptr;
};

} // namespace ui
