#pragma once
// The control row of the positional-encodings lab: side, positions, curve dimensions, similarity, rotation
// pair and offset, and under them a one-line summary of the table shown.

#include <QString>
#include <QVector>
#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace ui {

class PositionalControls : public QWidget {
    Q_OBJECT
public:
    explicit PositionalControls(QWidget* parent = nullptr);
    ~PositionalControls() override;

    /// The dimensions below `dims` that `text` names ("0, 1, 6, 7", "0-3, 8"), in the order typed, each
    /// once, at most as many as the curve plot can tell apart; anything else is ignored.
    static QVector<int> parseDims(const QString& text, int dims);

    // The setters below move a widget without emitting, so the view echoing a value back never loops.

    /// Hides the controls but not the summary, for a model without a table.
    void setControlsVisible(bool visible);
    /// Only encoder–decoder models have two sides to choose from.
    void setSideSelectable(bool selectable);
    void setSourceSide(bool source);
    /// The range of Positions, and beside it why the range ends where it does (the table's rows, max_len).
    void setPositionsRange(int minimum, int maximum, const QString& limit);
    QString positionsLimitText() const;
    void setPositions(int positions);
    void setDimsText(const QString& text);
    QString dimsText() const;
    void setCosineSimilarity(bool cosine);
    void setPairRange(int minimum, int maximum);
    void setPair(int pair);
    void setOffsetRange(int minimum, int maximum);
    void setOffset(int offset);
    void setSummary(const QString& text);

Q_SIGNALS:
    // Emitted only for a change the user makes.
    void sourceSideChosen(bool source);
    void positionsChosen(int positions);
    /// On Return or leaving the field, with the text as typed.
    void curveDimsEdited(const QString& dims);
    void cosineSimilarityChosen(bool cosine);
    void pairChosen(int pair);
    void offsetChosen(int offset);

private:
    QWidget* controls_ = nullptr;
    QComboBox* sideBox_ = nullptr;
    QLabel* sideLabel_ = nullptr;
    QSpinBox* positionsSpin_ = nullptr;
    QLabel* positionsLimit_ = nullptr;
    QLineEdit* dimsEdit_ = nullptr;
    QComboBox* similarityBox_ = nullptr;
    QSpinBox* pairSpin_ = nullptr;
    QSpinBox* offsetSpin_ = nullptr;
    QLabel* summary_ = nullptr;
};

} // namespace ui
