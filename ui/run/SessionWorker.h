#pragma once
// Lives on the analysis thread and owns the core::Session: requests are queued here from the GUI thread,
// and a newer analysis replaces every request still waiting (latest wins), so typing never queues stale
// work.

#include "core/run/InsideRow.h"
#include "core/run/Sampler.h"
#include "ui/run/InsideResult.h"
#include "ui/run/RunResult.h"

#include <QObject>

#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <string>

namespace core {
class Session;
}

namespace ui {

class SessionWorker : public QObject {
    Q_OBJECT
public:
    enum class Op {
        SetModel,
        Analyze,
        Step,
        Back,
        Force,
        RunToEnd,
        Reset,
        SetSampling,
        Inside,
        SetAblation,
        SetValueWeighted
    };
    struct Request {
        Op op = Op::Step;
        std::shared_ptr<const core::Model> model; // SetModel
        std::string text;                         // Analyze
        bool pastMaxLen = false;                  // Analyze: read past max_len where possible
        bool byIds = false;                       // Analyze: these ids, not the text
        std::vector<int64_t> srcIds, tgtIds;      // Analyze by ids
        int64_t token = 0;                        // Force
        core::SamplingSettings sampling;          // SetSampling
        core::InsideQuery inside;                 // Inside
        core::HeadAblation ablation;              // Analyze, SetAblation: the heads to switch off from now on
        bool valueWeighted = false;               // SetValueWeighted
        uint64_t run = 0;                         // the analysis this request belongs to
        uint64_t seq = 0;                         // increasing with every request sent
    };

    SessionWorker();
    ~SessionWorker() override;

    /// Thread-safe. SetModel and Analyze drop the waiting requests they make pointless.
    void post(Request request);
    /// True while a request waits or runs.
    bool busy() const { return busy_.load(); }
    /// Thread-safe. Stops a Run to end between two steps and drops what waits (the window is closing).
    void cancel();

Q_SIGNALS:
    void resultReady(ui::RunResultPtr result);
    /// An Inside request's row, or why it could not be opened.
    void insideReady(ui::InsideResultPtr result);
    void insideFailed(const QString& message, quint64 run);
    /// `analysis`: the text itself could not be analysed, so the run has nothing to step through.
    void failed(const QString& message, quint64 run, bool analysis);
    /// Every request that was run (not those dropped as stale) ends with this, after its results.
    void processed(quint64 seq);
    /// How far the passes of a run's analysis (or its run again with other heads off) have got: first with
    /// no layer done, then after each layer (core::Session::setProgress).
    void progressed(quint64 run, qulonglong tokens, int layersDone, int layers);

private:
    void drain();
    void run(const Request& r);
    void emitResult(const Request& r);
    void emitInside(const Request& r);
    /// The effect of the heads switched off at the current state, the greedy outputs decoded once per run and
    /// set of heads.
    std::shared_ptr<const core::AblationEffect> ablationEffect(uint64_t run);
    bool hasWaiting() const; ///< a request other than Inside waits

    mutable std::mutex mutex_;
    std::deque<Request> queue_;
    std::atomic<bool> busy_{false};
    std::atomic<bool> cancelled_{false};
    // Touched only on the worker thread.
    std::shared_ptr<const core::Model> model_;
    std::unique_ptr<core::Session> session_;
    core::SamplingSettings sampling_; // the heads switched off are the session's (Session::ablation)
    bool valueWeighted_ = false;
    QString sourceText_;
    // The greedy outputs with and without the heads off, for the run and heads they were decoded for: they
    // depend on neither the step nor the tokens decoded since.
    std::string greedyKey_;
    core::AblationEffect greedy_;
};

} // namespace ui
