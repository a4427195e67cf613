#pragma once
// A strip above the tokens that says when the text does not fit the model: cut at max_len (shorten it, or,
// where positions extend by formula, read past max_len), or read past max_len (a warning that stays while
// it holds). Hidden when the text fits.

#include "core/model/ModelConfig.h"
#include "core/run/AttentionSnapshot.h"

#include <QFrame>

class QLabel;
class QPushButton;

namespace ui {

class LengthBanner : public QFrame {
    Q_OBJECT
public:
    explicit LengthBanner(QWidget* parent = nullptr);

    /// Shows what this snapshot's lengths call for; `canPass` when the model's positions extend past
    /// max_len, `passing` when the run was asked to go past.
    void showFor(const core::AttentionSnapshot& snap, bool canPass, bool passing);
    QString text() const;
    QPushButton* button() const { return button_; }

Q_SIGNALS:
    /// The user asked to read past max_len (true) or to stop at it again (false).
    void pastMaxLenRequested(bool past);

private:
    QLabel* label_ = nullptr;
    QPushButton* button_ = nullptr;
    bool passing_ = false;
};

} // namespace ui
