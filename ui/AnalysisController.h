#pragma once
// The GUI thread's handle on the analysis: debounces typing, sends requests to the SessionWorker on its
// own thread, drops results of superseded runs, and keeps the history of steps so Back and Reset show
// a stored result at once instead of waiting for a recompute.

#include "core/Sampler.h"
#include "ui/RunResult.h"
#include "ui/SessionWorker.h"

#include <QObject>
#include <QString>

#include <memory>
#include <vector>

class QThread;
class QTimer;

namespace ui {


class AnalysisController : public QObject {
    Q_OBJECT
public:
    explicit AnalysisController(QObject* parent = nullptr);
    ~AnalysisController() override;

    /// The model every following request runs on; the shown run is cleared.
    void setModel(std::shared_ptr<const core::Model> model);
    std::shared_ptr<const core::Model> model() const { return model_; }
    /// Re-analyses after a short pause in typing (debounceMs); an empty text clears the view.
    void setText(const QString& text);
    QString text() const { return text_; }
    /// Analyses the current text now, skipping the debounce.
    void analyzeNow();
    void step();
    void back();
    void runToEnd();
    void reset();
    /// Appends this token instead of the sampled one; the decode branches from here.
    void force(int64_t token);
    void setSampling(const core::SamplingSettings& s);
    const core::SamplingSettings& sampling() const { return sampling_; }

    RunResultPtr current() const { return current_; }
    /// True while a request is debounced, waiting or running.
    bool busy() const;
    /// Runs the event loop until nothing is pending (for the screenshot command and tests).
    bool waitUntilIdle(int timeoutMs = 30000);

    static constexpr int kDebounceMs = 30;

Q_SIGNALS:
    /// The shown state changed: a new analysis, a step, or a step taken from history.
    void resultChanged(ui::RunResultPtr result);
    /// The text is empty: nothing to show.
    void cleared();
    /// A request could not be carried out; the previous state stays shown.
    void failed(const QString& message);
    void busyChanged(bool busy);

private:
    void post(int op, int64_t token = 0);
    void onResult(const RunResultPtr& r);
    void onFailed(const QString& message, quint64 run);
    void show(const RunResultPtr& r);
    void send(SessionWorker::Request r);
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
    RunResultPtr current_;
    std::vector<RunResultPtr> history_; // index = step, of the current branch
    int optimistic_ = 0;                // results of Back/Reset already shown from history, to skip
    bool lastBusy_ = false;
};

} // namespace ui
