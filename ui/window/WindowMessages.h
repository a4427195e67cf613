#pragma once
// What the main window tells the user besides its pages: the red line under the source for an error, the
// status bar's messages about the text on screen (which go with that text, not when their time runs out),
// the busy indicator and the timings of the last result.

#include <QObject>
#include <QString>

class QLabel;
class QStatusBar;
class QWidget;

namespace core {
struct AttentionSnapshot;
}

namespace ui {

class WindowMessages : public QObject {
    Q_OBJECT
public:
    /// Makes the error line as a child of errorParent (the caller lays it out) and puts the busy indicator
    /// and the timings into statusBar.
    WindowMessages(QWidget* errorParent, QStatusBar* statusBar, QObject* parent = nullptr);

    QLabel* errorLine() const { return message_; }
    /// Shown in the error line and the status bar until clearError().
    void showError(const QString& message);
    /// Also takes away a status message about the text still shown ("the source has 42 tokens…").
    void clearError();
    /// The last error shown; empty after clearError().
    const QString& lastError() const { return lastError_; }
    /// A status-bar message about the text on screen (an error, unknown pieces): clearError() takes it away.
    void showStateMessage(const QString& text, int ms);
    /// A message about something done (a load, an export): it stays its time.
    void showMessage(const QString& text, int ms = 0);
    void setBusy(bool busy);
    /// The encoder's and decoder's times of a result, and a note when pieces of its text are not in the
    /// model's vocabulary.
    void showResult(const core::AttentionSnapshot& snap);
    /// Nothing shown any more (the text cleared, another model): its timings and messages go, the error too.
    void clearResult();
    /// The timings shown in the status bar ("encode 3.1 ms · decode 1.2 ms"), empty without a result.
    QString timingText() const;

private:
    void clearStateMessage();

    QStatusBar* status_ = nullptr;
    QLabel* message_ = nullptr;
    QLabel* busy_ = nullptr;
    QLabel* timing_ = nullptr;
    QString stateMessage_;
    QString lastError_;
};

} // namespace ui
