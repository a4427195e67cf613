#include "ui/run/SessionWorker.h"

#include "core/analysis/ValueWeighting.h"
#include "core/base/Errors.h"
#include "core/model/Model.h"
#include "core/run/Session.h"

#include <QMetaObject>

namespace ui {

SessionWorker::SessionWorker() = default;
SessionWorker::~SessionWorker() = default;

void SessionWorker::post(Request request) {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (request.op == Op::Analyze || request.op == Op::SetModel) {
            // Steps and analyses still waiting belong to a text or model that is already replaced;
            // model and sampling changes must still apply. Heads switched off come with the analysis
            // (or are another model's): a SetAblation waiting would only run the replaced text again.
            queue_.erase(std::remove_if(queue_.begin(), queue_.end(),
                                        [](const Request& r) {
                                            return r.op != Op::SetModel && r.op != Op::SetSampling &&
                                                   r.op != Op::SetValueWeighted;
                                        }),
                         queue_.end());
        } else if (request.op == Op::Inside) {
            queue_.erase(std::remove_if(queue_.begin(), queue_.end(),
                                        [](const Request& r) { return r.op == Op::Inside; }),
                         queue_.end());
        }
        queue_.push_back(std::move(request));
        busy_ = true;
    }
    QMetaObject::invokeMethod(
        this, [this] { drain(); }, Qt::QueuedConnection);
}

void SessionWorker::cancel() {
    std::lock_guard<std::mutex> lock(mutex_);
    cancelled_ = true;
    queue_.clear();
}

bool SessionWorker::hasWaiting() const {
    // An Inside request (the page following each step shown) waits for the run instead of stopping it.
    std::lock_guard<std::mutex> lock(mutex_);
    return std::any_of(queue_.begin(), queue_.end(), [](const Request& r) { return r.op != Op::Inside; });
}

void SessionWorker::drain() {
    for (;;) {
        Request r;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (queue_.empty()) {
                busy_ = false;
                return;
            }
            r = std::move(queue_.front());
            queue_.pop_front();
        }
        try {
            run(r);
        } catch (const std::exception& e) {
            // A core::Error is something the user can cause; anything else is a bug, but the window must
            // survive it and say what happened.
            const bool user = dynamic_cast<const core::Error*>(&e) != nullptr;
            const auto message =
                user ? QString::fromStdString(e.what())
                     : QStringLiteral("internal error: %1").arg(QString::fromStdString(e.what()));
            if (r.op == Op::Inside) {
                Q_EMIT insideFailed(message, r.run); // the run itself is unharmed
            } else {
                if (r.op == Op::Analyze)
                    session_.reset(); // stepping must not go on with the text before it
                Q_EMIT failed(message, r.run, r.op == Op::Analyze);
            }
        }
        Q_EMIT processed(r.seq);
    }
}

void SessionWorker::run(const Request& r) {
    switch (r.op) {
    case Op::SetModel:
        model_ = r.model;
        session_.reset();
        return;
    case Op::SetSampling:
        sampling_ = r.sampling;
        if (session_)
            session_->setSampling(sampling_);
        return;
    case Op::Analyze: {
        if (!model_)
            throw core::InputError("no model is loaded");
        auto session = std::make_unique<core::Session>(model_);
        session->setProgress([this, run = r.run](const core::AnalysisProgress& p) {
            Q_EMIT progressed(run, p.tokens, p.layersDone, p.layers);
        });
        session->setSampling(sampling_);
        session->setPastMaxLen(r.pastMaxLen);
        session->setAblation(r.ablation);
        if (r.byIds)
            session->analyzeIds(r.srcIds, r.tgtIds);
        else
            session->analyze(r.text); // throws on an empty text; too long a text is cut
        session_ = std::move(session);
        sourceText_ = QString::fromStdString(r.text);
        emitResult(r);
        return;
    }
    case Op::SetAblation:
        if (!session_)
            return; // the next analysis brings the heads with it
        try {
            session_->setAblation(r.ablation); // runs the run so far again with them off
        } catch (...) {
            // The session keeps the heads it had; a result says which, so the window shows them again.
            emitResult(r);
            throw;
        }
        emitResult(r);
        return;
    case Op::SetValueWeighted:
        valueWeighted_ = r.valueWeighted;
        if (session_)
            emitResult(r);
        return;
    default:
        break;
    }
    if (!session_)
        return; // nothing analysed (or the analysis failed): stepping has nothing to act on
    switch (r.op) {
    case Op::Step:
        if (session_->step() < 0)
            return; // already finished: nothing changed
        break;
    case Op::Back:
        if (!session_->back())
            return;
        break;
    case Op::Force:
        session_->force(r.token);
        break;
    case Op::Reset:
        session_->reset();
        break;
    case Op::Inside:
        emitInside(r);
        return;
    case Op::RunToEnd:
        // Each step is shown as it comes; any new request (a keystroke, Back) stops the run.
        while (!session_->finished() && !hasWaiting() && !cancelled_) {
            session_->step();
            emitResult(r);
        }
        return;
    default:
        return;
    }
    emitResult(r);
}

void SessionWorker::emitInside(const Request& r) {
    Q_EMIT insideReady(openInside(*session_, r.inside, r.run));
}

std::shared_ptr<const core::AblationEffect> SessionWorker::ablationEffect(uint64_t run) {
    auto effect = std::make_shared<core::AblationEffect>(core::nextTokenEffect(*session_));
    const auto key = std::to_string(run) + "|" + session_->ablation().text();
    if (key != greedyKey_) {
        greedy_ = core::AblationEffect{};
        core::addGreedyOutputs(greedy_, *session_, kGreedyTokens);
        greedyKey_ = key;
    }
    effect->greedyFull = greedy_.greedyFull;
    effect->greedyAblated = greedy_.greedyAblated;
    effect->textFull = greedy_.textFull;
    effect->textAblated = greedy_.textAblated;
    effect->firstDifference = greedy_.firstDifference;
    return effect;
}

void SessionWorker::emitResult(const Request& r) {
    auto res = std::make_shared<RunResult>();
    res->model = model_;
    auto snap = session_->snapshot();
    if (valueWeighted_)
        core::addValueWeighted(snap);
    res->valueWeighted = valueWeighted_;
    res->snapshot = std::make_shared<const core::AttentionSnapshot>(std::move(snap));
    res->ablation = session_->ablation();
    if (!res->ablation.empty())
        res->effect = ablationEffect(r.run);
    res->sourceText = sourceText_;
    res->decodedText = QString::fromStdString(session_->decodedText());
    res->step = static_cast<int>(session_->decodedCount());
    res->ending = session_->ending();
    res->finished = res->ending != core::RunEnding::Open;
    res->pastMaxLen = session_->pastMaxLen();
    res->run = r.run;
    res->request = r.seq;
    res->bytes = res->snapshot->bytes();
    Q_EMIT resultReady(std::move(res));
}

} // namespace ui
