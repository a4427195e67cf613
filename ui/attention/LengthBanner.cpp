#include "ui/attention/LengthBanner.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>

namespace ui {

LengthBanner::LengthBanner(QWidget* parent) : QFrame(parent) {
    setObjectName(QStringLiteral("lengthBanner"));
    setFrameShape(QFrame::StyledPanel);
    // The amber of a warning that does not stop the work.
    setStyleSheet(QStringLiteral("#lengthBanner { background: #fff4d6; border: 1px solid #d9a53c; }"
                                 "#lengthBanner QLabel { color: #5c3d00; }"));
    auto* row = new QHBoxLayout(this);
    row->setContentsMargins(8, 4, 8, 4);
    label_ = new QLabel(this);
    label_->setWordWrap(true);
    // A long message wraps instead of widening the window.
    label_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    button_ = new QPushButton(tr("Read past max_len"), this);
    button_->setObjectName(QStringLiteral("pastMaxLenButton"));
    button_->setToolTip(tr("Read the text past max_len, where the model's positions extend by formula"));
    // A click leaves the focus in the Source field, where Enter decodes to the end; Tab still reaches it.
    button_->setFocusPolicy(Qt::TabFocus);
    row->addWidget(label_, 1);
    row->addWidget(button_);
    connect(button_, &QPushButton::clicked, this, [this] { Q_EMIT pastMaxLenRequested(!passing_); });
    hide();
}

void LengthBanner::showFor(const core::AttentionSnapshot& snap, bool canPass, bool passing) {
    passing_ = passing;
    const int read = snap.readTokens, max = snap.maxLen;
    const bool past = max > 0 && read > max;
    if (!snap.cut() && !past) {
        hide();
        return;
    }
    QString text;
    if (snap.cut())
        text = tr("The text has %1 tokens; this model reads %2. Only the first %2 are analysed (✂ marks the "
                  "cut): shorten the text to see the rest.")
                   .arg(snap.textTokens)
                   .arg(read);
    if (past)
        text += (text.isEmpty() ? QString() : QStringLiteral(" ")) +
                tr("⚠ Read past max_len (%1): positions %1–%2 were never seen in training, so what the model "
                   "does there may mean little.")
                    .arg(max)
                    .arg(read - 1);
    else if (snap.cut() && !canPass)
        text += tr(" Its positions are learned and end at max_len.");
    label_->setText(text);
    button_->setVisible(canPass);
    button_->setText(passing ? tr("Stop at max_len") : tr("Read past max_len"));
    button_->setToolTip(passing ? tr("Analyse only the first %1 tokens again").arg(max)
                                : tr("Read up to %1 tokens: the positions extend by formula, but past %2 the "
                                     "model never saw them in training")
                                      .arg(max * core::ModelConfig::kPastMaxLen)
                                      .arg(max));
    show();
}

QString LengthBanner::text() const {
    return label_->text();
}

} // namespace ui
