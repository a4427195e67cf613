#pragma once
// The "Heads" page: every decoder self-attention head of the model scored on random token sequences given
// twice (<bos> R R), in a table sorted by any column: induction and previous-token scores, weight on the
// first token, entropy, distance. The scores describe the model, not the typed text, so they are computed
// once per model (off the GUI thread) and again only when R or the number of sequences changes.

#include "core/analysis/HeadAnalysis.h"

#include <QString>
#include <QWidget>

#include <memory>
#include <optional>
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

/// The sequence a head's scores were measured on, ready to be analysed by ids and shown.
struct MeasuredSequence {
    std::vector<int64_t>
        src; ///< as Session::analyzeIds takes it: <bos> R <eos>, or a decoder-only prompt <bos> R R
    std::vector<int64_t> tgt; ///< <bos> R R, teacher-forced (empty for decoder-only models)
    QString text;             ///< R detokenized, for the source field
    QString description;      ///< what it is, for the status bar
};

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
    /// The first sequence the shown scores were measured on (with the settings they were measured with);
    /// nothing, with *whyNot set, when there are no scores or the model cannot take the sequence.
    std::optional<MeasuredSequence> measuredOn(QString* whyNot) const;
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
    core::HeadAnalysisSettings scored_; // the settings of the last scoring started
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
