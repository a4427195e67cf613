#include "ui/window/WindowMessages.h"

#include "core/run/AttentionSnapshot.h"

#include <QLabel>
#include <QStatusBar>

namespace ui {

WindowMessages::WindowMessages(QWidget* errorParent, QStatusBar* statusBar, QObject* parent)
    : QObject(parent), status_(statusBar) {
    message_ = new QLabel(errorParent);
    message_->setObjectName(QStringLiteral("messageLabel"));
    message_->setTextFormat(Qt::PlainText);
    message_->setWordWrap(true);
    message_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred); // see DecodePanel's status line
    message_->setVisible(false);
    message_->setStyleSheet(QStringLiteral("color: #b03a2e;"));

    timing_ = new QLabel(statusBar);
    timing_->setObjectName(QStringLiteral("timingLabel"));
    timing_->setToolTip(tr("Wall time of the last encoder pass and decoder step"));
    busy_ = new QLabel(tr("computing…"), statusBar);
    busy_->setObjectName(QStringLiteral("busyLabel"));
    busy_->setVisible(false);
    statusBar->addPermanentWidget(busy_);
    statusBar->addPermanentWidget(timing_);
}

void WindowMessages::showError(const QString& message) {
    lastError_ = message;
    message_->setText(QStringLiteral("⚠ ") + message);
    message_->setVisible(true);
    showStateMessage(message, 8000);
}

void WindowMessages::clearError() {
    lastError_.clear();
    message_->setVisible(false);
    clearStateMessage();
}

void WindowMessages::showStateMessage(const QString& text, int ms) {
    stateMessage_ = text;
    status_->showMessage(text, ms);
}

void WindowMessages::clearStateMessage() {
    // Only a message about the text on screen goes; one about a load or an export stays its time.
    if (!stateMessage_.isEmpty() && status_->currentMessage() == stateMessage_)
        status_->clearMessage();
    stateMessage_.clear();
}

void WindowMessages::showMessage(const QString& text, int ms) {
    status_->showMessage(text, ms);
}

void WindowMessages::setBusy(bool busy) {
    busy_->setVisible(busy);
}

void WindowMessages::showResult(const core::AttentionSnapshot& snap) {
    // A model that reads without generating (an encoder, a classifier) makes one pass and decodes nothing.
    if (!snap.decodes) {
        timing_->setText(tr("pass %1 ms").arg(snap.encodeMs + snap.decodeMs, 0, 'f', 1));
        timing_->setToolTip(tr("Wall time of the model's pass over the text"));
    } else {
        timing_->setText(snap.srcTokens.empty() ? tr("decode %1 ms").arg(snap.decodeMs, 0, 'f', 1)
                                                : tr("encode %1 ms · decode %2 ms")
                                                      .arg(snap.encodeMs, 0, 'f', 1)
                                                      .arg(snap.decodeMs, 0, 'f', 1));
        timing_->setToolTip(snap.srcTokens.empty()
                                ? tr("Wall time of the last decoder step")
                                : tr("Wall time of the encoder pass and the last decoder step"));
    }
    int unknown = 0;
    for (const auto* side : {&snap.srcTokens, &snap.tgtTokens})
        for (const auto& t : *side)
            unknown += t.unknown ? 1 : 0;
    if (unknown > 0)
        showStateMessage(
            tr("%n piece(s) of the text are not in the model's vocabulary (marked); the model sees "
               "<unk> there",
               nullptr, unknown),
            5000);
}

void WindowMessages::clearResult() {
    timing_->clear();
    clearError();
}

QString WindowMessages::timingText() const {
    return timing_->text();
}

} // namespace ui
