#pragma once
// The GUI thread's handle on the analysis: debounces typing, sends requests to the SessionWorker on its
// own thread, drops results of superseded runs, and keeps the history of steps so Back and Reset show
// a stored result at once instead of waiting for a recompute.

#include "core/run/Sampler.h"
#include "ui/run/RunResult.h"
#include "ui/run/SessionWorker.h"
#include "ui/run/StepHistory.h"

#include <QObject>
#include <QString>

#include <memory>
#include <set>
#include <vector>

class QThread;
class QTimer;

namespace ui {

class ViewState;

class AnalysisController : public QObject {
    Q_OBJECT
public:
    /// `view` holds the heads switched off and the colour source, which every run follows; without one the
    /// controller keeps its own (a window-less use: tests, the bench).
    explicit AnalysisController(ViewState* view = nullptr, QObject* parent = nullptr);
    ~AnalysisController() override;

    /// The model every following request runs on; the shown run is cleared and the text re-analysed.
    void setModel(std::shared_ptr<const core::Model> model);
    std::shared_ptr<const core::Model> model() const { return model_; }
    /// Re-analyses after a short pause in typing (kDebounceMs); an empty text clears the view.
    void setText(const QString& text);
    QString text() const { return text_; }
    /// Analyses the current text now, skipping the debounce.
    void analyzeNow();
    /// Analyses ids used exactly as given (Session::analyzeIds): a sequence that is no typed text, such as
    /// the one head scores were measured on. `text` is what the source field shows for it.
    void analyzeIds(std::vector<int64_t> src, std::vector<int64_t> tgt, const QString& text);
    /// The decoding requests act on the analysis on screen, or on the text just typed when its analysis is
    /// still debounced; without one (nothing typed yet, or the text could not be analysed) they do nothing.
    void step();
    void back();
    void runToEnd();
    void reset();
    /// Appends this token instead of the sampled one; the decode branches from here.
    void force(int64_t token);
    void setSampling(const core::SamplingSettings& s);
    /// Reads texts past max_len where the model's positions allow it (re-analysing the current text).
    void setPastMaxLen(bool past);
    bool pastMaxLen() const { return pastMaxLen_; }
    /// The view state whose heads switched off and colour source the runs follow. A change of the heads runs
    /// the run on screen again at once (their output zeroed before W_O), and every run after it, until the
    /// model changes (which switches them all back on); weight × value colouring makes the worker add the
    /// value-weighted blocks to each snapshot. Results kept for Back were computed before and are dropped.
    ViewState* viewState() const { return view_; }
    /// Opens one row of attention (kind, layer, head, row) in the state the worker reaches after every
    /// request sent so far; insideReady() brings it. A newer request replaces one still waiting.
    void requestInside(const core::InsideQuery& query);
    const core::SamplingSettings& sampling() const { return sampling_; }

    RunResultPtr current() const { return current_; }
    /// True while a request is debounced, waiting, running, or its result is not shown yet.
    bool busy() const;
    /// True from analysing() until the run's result is shown or the run ends.
    bool analysingNow() const { return passes_.said; }
    /// Runs the event loop until nothing is pending (for the screenshot command and tests).
    bool waitUntilIdle(int timeoutMs = 30000);
    /// Results kept for Back; beyond this many bytes the oldest steps are dropped (Back then recomputes).
    void setHistoryBudget(std::size_t bytes) { history_.setBudget(bytes); }
    /// Steps whose result is kept, for tests.
    int historySize() const;

    static constexpr int kDebounceMs = 30;
    /// How long work may take before busyChanged() and analysing() say so: kGlanceMs, so quick work never
    /// flickers the indicators (a test of what is said sets 0).
    void setGlanceMs(int ms);
    static constexpr int kGlanceMs = 150;

Q_SIGNALS:
    /// The shown state changed: a new analysis, a step, or a step taken from history.
    void resultChanged(ui::RunResultPtr result);
    /// Nothing to show: the text is empty, the model changed, or the text could not be analysed.
    void cleared();
    /// A request could not be carried out (emitted after cleared() when the analysis itself failed).
    void failed(const QString& message);
    void busyChanged(bool busy);
    /// Every request sent has been carried out and shown: also after work too quick for busyChanged, which
    /// waits a glance before it says so (what waits on the analysis, a drive say, wakes on this).
    void idle();
    /// New sampling settings, sent to the worker: what follows them asks for its results after this.
    void samplingChanged(const core::SamplingSettings& s);
    /// The current run's passes over its text outlast a glance (a long text): how far they have got, after
    /// each layer, until its result is shown (resultChanged) or the run ends (cleared, failed). Also for the
    /// run again with other heads off.
    void analysing(qulonglong tokens, int layersDone, int layers);
    /// An Inside request's result (of the current run only), or why the row could not be opened.
    void insideReady(ui::InsideResultPtr result);
    void insideFailed(const QString& message);

private:
    void send(SessionWorker::Request r);
    void startRun(SessionWorker::Request r); ///< a new analysis: the run before it is over
    /// Whether Step and Run to end have an analysis to act on, after starting the one still debounced.
    bool readyToDecode();
    void sendOp(SessionWorker::Op op, int64_t token = 0);
    void onResult(const RunResultPtr& r);
    void onHeadsOff(const core::HeadAblation& heads);
    void onValueWeighted(bool on);
    void onFailed(const QString& message, quint64 run, bool analysis);
    void onProcessed(quint64 seq);
    void onProgress(quint64 run, qulonglong tokens, int layersDone, int layers);
    void endAnalysing();
    void show(const RunResultPtr& r);
    void clearRun();
    /// Serves Back/Reset from history when every request in flight is one already served that way, so
    /// what is on screen is what the worker has done.
    bool showFromHistory(std::size_t step);
    void noteActivity();
    void updateBusy();

    QThread* thread_ = nullptr;
    SessionWorker* worker_ = nullptr;
    QTimer* debounce_ = nullptr;
    QTimer* busyDelay_ = nullptr;
    QTimer* showTimer_ = nullptr; // coalesces a burst of results (Run to end) into one repaint
    RunResultPtr pending_;
    std::shared_ptr<const core::Model> model_;
    core::SamplingSettings sampling_;
    QString text_;
    uint64_t run_ = 0;
    uint64_t analyzedRun_ = ~uint64_t(0); // the run whose analysis was sent; Step and Run to end act on it
    uint64_t lastSent_ = 0;
    uint64_t lastProcessed_ = 0;
    std::set<uint64_t> servedFromHistory_; // requests whose result was shown ahead; theirs is skipped
    std::set<uint64_t> insideSent_;        // Inside requests not processed yet (or dropped as stale)
    RunResultPtr current_;
    StepHistory history_; // the current branch's steps, for Back and Reset
    bool lastBusy_ = false;
    // The passes of the current run under way (SessionWorker::progressed), said once they outlast a glance.
    struct Passes {
        bool running = false;
        bool said = false;
        qulonglong tokens = 0;
        int done = 0, layers = 0;
    } passes_;
    bool analysingSaid_ = false; ///< analysing() was emitted and no result or cleared() has followed since
    bool pastMaxLen_ = false;
    ViewState* view_ = nullptr;
    bool adopting_ = false;     ///< the view takes the heads the worker has: nothing to send back
    uint64_t ablationSent_ = 0; ///< the last request that changed the worker's heads (SetAblation, SetModel)
};

} // namespace ui
