#pragma once
// Brings the window to a WindowState, one request at a time, each taken when the one before has landed: the
// model opened, the text analysed and decoded to the state's step, heads switched off, the page, kind,
// layer, head, mark, scale and colours set, the Inside stage framed, a Train-tab run started and its frame
// shown, waiting for every background job the state's page shows. arrived() says when the whole state is
// on screen. Lessons, `attnscope --screenshot` and the tests drive the window through it, and capture()
// reads the window back as a state.

#include "ui/base/Pages.h"
#include "ui/base/WindowState.h"

#include <QElapsedTimer>
#include <QObject>
#include <QString>

#include <functional>

class QTimer;

namespace ui {

class AnalysisController;
class AttentionPage;
class ComparePage;
class HeadTable;
class InsideView;
class ModelOpener;
class PositionalView;
class TrainPage;
class ViewState;

/// What of the window the driver moves; the window fills it in (the driver knows no window class).
struct WindowParts {
    QObject* owner = nullptr;
    ModelOpener* opener = nullptr;
    AnalysisController* controller = nullptr;
    ViewState* state = nullptr;
    AttentionPage* attention = nullptr; ///< where the sampling settings are chosen
    InsideView* inside = nullptr;
    PositionalView* positional = nullptr;
    HeadTable* heads = nullptr;
    TrainPage* train = nullptr;
    ComparePage* compare = nullptr;
    std::function<QString()> sourceText;
    std::function<void(const QString&)> setSourceText;
    std::function<Page()> currentPage;
    std::function<void(Page)> showPage; ///< does nothing for a page the model hides
    std::function<QString()> lastError; ///< why the last model did not open
};

class WindowDriver : public QObject {
    Q_OBJECT
public:
    /// How a drive goes, besides the state itself.
    struct Options {
        /// Wait for the head scores even off the Heads page (a lesson caption that quotes them).
        bool headScores = false;
        /// A model that finishes its output before the state's step stops there (a screenshot's --steps
        /// is "at most"); otherwise that is a failure.
        bool stepsAtMost = false;
        /// A state the settings remembered (AppSettings::rememberedState): what this model lacks (a kind, a
        /// layer or head) is left as the window chose, not a failure, and the sampling is taken whole.
        bool remembered = false;
    };

    explicit WindowDriver(WindowParts parts);

    /// Starts bringing the window to `target`; a drive still under way is given up for it.
    void drive(WindowState target, Options options);
    void drive(WindowState target) { drive(std::move(target), Options{}); }
    /// Gives the drive up where it is.
    void stop();
    bool driving() const { return active_ && !arrived_; }
    /// The window shows the target (until the user changes it or another drive starts).
    bool arrived() const { return active_ && arrived_; }
    const WindowState& target() const { return target_; }
    /// What the drive waits for now ("Back from step 3 to 2", "the head scores"…); empty once arrived.
    const QString& awaiting() const { return awaiting_; }
    /// Drives and runs the event loop until the state is reached or cannot be; false with *error set then
    /// (for the screenshot command and tests).
    bool driveAndWait(WindowState target, Options options, QString* error, int timeoutMs = 600000);

    /// The window's state now: the model's folder, the text, the step, the run's settings and the view.
    WindowState capture() const;
    const WindowParts& parts() const { return w_; }

Q_SIGNALS:
    /// The page and the view are set (what is shown may still be waiting for a background job).
    void viewSet();
    void arrivedAtTarget();
    /// The drive waits for something that takes a while (a training run to reach a step): what it waits for.
    void waiting(const QString& what);
    /// The target cannot be reached (a model that does not open, a layer it lacks…): the message says what.
    void failed(const QString& message);

private:
    void schedule();
    void reconcile();
    /// Sets the page and the view; false when the state asks for what the model lacks (failed is sent).
    bool applyView();
    bool reachTraining();
    void fail(const QString& message);
    /// Heard nothing for a while: still waiting for work under way, a look again, or stopped (a failure).
    void checkQuiet();
    bool workUnderWay() const;

    WindowParts w_;
    WindowState target_;
    Options options_;
    bool active_ = false;
    bool arrived_ = false;
    bool scheduled_ = false;
    bool pinned_ = false;
    int requests_ = 0; // requests sent for this drive: a guard against a state that never settles
    QString awaiting_;
    QTimer* quiet_ = nullptr;  // restarted by every look at the state: fires when nothing came for a while
    QElapsedTimer quietSince_; // since the last signal that woke the drive
    int quietLooks_ = 0;       // looks taken since then without one
};

} // namespace ui
