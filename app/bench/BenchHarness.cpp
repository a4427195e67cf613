#include "app/bench/BenchHarness.h"

#include "app/bench/BenchMeasure.h"
#include "app/bench/BenchTranslation.h"

#include "core/base/Errors.h"
#include "core/model/Model.h"
#include "ui/attention/AttentionPage.h"
#include "ui/base/AttentionText.h"
#include "ui/base/QCustomPlotInclude.h"
#include "ui/base/ViewState.h"
#include "ui/run/AnalysisController.h"
#include "ui/run/ModelLoader.h"
#include "ui/views/HeatmapView.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QTimer>

#include <algorithm>
#include <functional>
#include <map>
#include <sstream>
#include <vector>

namespace {

using Clock = BenchClock;

// The attention page's size in the window at its default 1400 × 900, so the grid and the heatmap get the
// pixels they get there (about 487 × 570 and 599 × 570 with a one-line text).
const QSize kPageSize(1378, 785);

// The page counts as repainted once neither view has painted or replotted for this long: a second replot
// that new tick labels queue belongs to the repaint a user waits for.
constexpr double kQuietMs = 40.0;
// Longer than any analysis the bench asks for takes here; past it the run is stuck, not slow.
constexpr int kTimeoutMs = 300000;

double ms(Clock::duration d) {
    return std::chrono::duration<double, std::milli>(d).count();
}

std::vector<std::string> words(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    std::string w;
    while (in >> w)
        out.push_back(w);
    return out;
}

// Paint events of the watched widgets, counted, so the loop knows when each has repainted.
class PaintCounter : public QObject {
public:
    int paints(const QObject* w) const {
        const auto it = count_.find(w);
        return it == count_.end() ? 0 : it->second;
    }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override {
        if (event->type() == QEvent::Paint)
            ++count_[watched];
        return false;
    }

private:
    std::map<const QObject*, int> count_;
};

} // namespace

class Harness::Impl {
public:
    Impl() {
        page_.resize(kPageSize);
        page_.show();
        grid_ = page_.findChild<QWidget*>(QStringLiteral("attentionGrid"));
        auto* heatmap = page_.findChild<ui::HeatmapView*>(QStringLiteral("heatmapView"));
        if (!grid_ || !heatmap)
            throw core::Error("the attention page has no grid or heatmap to time");
        plot_ = heatmap->plot();
        grid_->installEventFilter(&paints_);
        plot_->installEventFilter(&paints_);
        // Connected before the page, so it runs first: showResult itself may paint (a plot that replots at
        // once repaints the whole window's dirty region with it).
        QObject::connect(&controller_, &ui::AnalysisController::resultChanged, &page_,
                         [this](const ui::RunResultPtr& r) {
                             if (r->sourceText != expected_ || arrived_)
                                 return;
                             arrived_ = true;
                             arrivedAt_ = Clock::now();
                             gridAtArrival_ = paints_.paints(grid_);
                         });
        QObject::connect(&controller_, &ui::AnalysisController::resultChanged, &page_,
                         &ui::AttentionPage::showResult);
        QObject::connect(&controller_, &ui::AnalysisController::failed, &page_,
                         [this](const QString& message) { failure_ = message.toStdString(); });
        // QCustomPlot repaints inside replot() by default (phImmediateRefresh), so the heatmap counts as
        // painted by a paint after its last replot began.
        QObject::connect(plot_, &QCustomPlot::beforeReplot, &page_, [this] {
            if (!arrived_)
                return;
            replotted_ = true;
            plotAtReplot_ = paints_.paints(plot_);
            lastActivity_ = Clock::now();
        });
        // The tick is an event like any other: while the GUI thread is inside a paint, a replot or showResult
        // it cannot come, so a gap between two ticks is time the window could not answer a click. It also
        // wakes the loop below, which otherwise sleeps until something happens, often enough to notice that
        // the page has gone quiet.
        ticks_.setTimerType(Qt::PreciseTimer);
        ticks_.setInterval(Harness::kStallTickMs);
        QObject::connect(&ticks_, &QTimer::timeout, &page_, [this] { tick(); });
    }

    // `act` runs on this thread between two ticks, so whatever it does at once (a selection that rebuilds
    // the heatmap synchronously) counts as a stall too. With awaitResult, the page counts as repainted only
    // after the result of the new text has arrived.
    HarnessTimes measure(const std::function<void()>& act, bool awaitResult) {
        arrived_ = replotted_ = false;
        failure_.clear();
        int seen = paints_.paints(grid_) + paints_.paints(plot_);
        QElapsedTimer waited;
        waited.start();
        const auto t0 = startTicks();
        if (!awaitResult) {
            arrived_ = true;
            arrivedAt_ = t0;
            gridAtArrival_ = paints_.paints(grid_);
        }
        act();
        auto lastPaint = t0;
        for (;;) {
            QCoreApplication::processEvents(QEventLoop::AllEvents | QEventLoop::WaitForMoreEvents);
            const auto now = Clock::now();
            if (!failure_.empty())
                throw core::Error("the page could not show the text: " + failure_);
            if (waited.elapsed() > kTimeoutMs)
                throw core::Error("the page was not repainted within " + std::to_string(kTimeoutMs / 1000) +
                                  " s");
            const int g = paints_.paints(grid_), p = paints_.paints(plot_);
            if (g + p != seen) {
                seen = g + p;
                if (arrived_)
                    lastPaint = lastActivity_ = now;
            }
            const bool painted = arrived_ && g > gridAtArrival_ && replotted_ && p > plotAtReplot_;
            if (painted && ms(now - lastActivity_) > kQuietMs)
                break;
        }
        // What the controller still does after the repaint (dropping the previous run) happens while the
        // user is already looking at the page: it belongs to the stall, not to the time to the repaint.
        wait();
        tick(); // a stall just before the end has no tick after it yet
        ticks_.stop();
        const double stall = std::max(0.0, ms(longestGap_) - Harness::kStallTickMs);
        return {awaitResult ? ms(arrivedAt_ - t0) : 0.0, ms(lastPaint - t0), stall};
    }

    HarnessTimes load(const QString& dir, std::shared_ptr<const core::Model>& model) {
        ui::ModelLoader loader;
        bool done = false;
        QObject::connect(&loader, &ui::ModelLoader::loaded, &page_,
                         [&](const QString&, std::shared_ptr<const core::Model> m) {
                             model = std::move(m);
                             done = true;
                         });
        QObject::connect(&loader, &ui::ModelLoader::failed, &page_,
                         [&](const QString&, const QString& error) {
                             failure_ = error.toStdString();
                             done = true;
                         });
        failure_.clear();
        QElapsedTimer waited;
        waited.start();
        const auto t0 = startTicks();
        loader.load(dir);
        while (!done && waited.elapsed() <= kTimeoutMs)
            QCoreApplication::processEvents(QEventLoop::AllEvents | QEventLoop::WaitForMoreEvents);
        const auto loadedAt = Clock::now();
        tick();
        ticks_.stop();
        if (!failure_.empty() || !model)
            throw core::Error("the window could not open " + dir.toStdString() + ": " +
                              (failure_.empty() ? "it took longer than the time allowed" : failure_));
        return {ms(loadedAt - t0), 0.0, std::max(0.0, ms(longestGap_) - Harness::kStallTickMs)};
    }

    // The stall timer from now: returns the moment it starts counting.
    Clock::time_point startTicks() {
        const auto t0 = Clock::now();
        lastTick_ = t0;
        longestGap_ = Clock::duration::zero();
        ticks_.start();
        return t0;
    }

    void tick() {
        const auto now = Clock::now();
        longestGap_ = std::max(longestGap_, now - lastTick_);
        lastTick_ = now;
    }

    void wait() {
        if (!controller_.waitUntilIdle(kTimeoutMs))
            throw core::Error("the analysis did not finish within " + std::to_string(kTimeoutMs / 1000) +
                              " s");
    }

    ui::ViewState state_;
    ui::AnalysisController controller_{&state_}; // the heads and colour source the page shows
    PaintCounter paints_;                        // before the page, so it outlives the widgets it watches
    ui::AttentionPage page_{&state_};
    QTimer ticks_;
    QWidget* grid_ = nullptr;
    QCustomPlot* plot_ = nullptr;
    QString expected_;
    std::string failure_;
    bool arrived_ = false;
    bool replotted_ = false;
    int gridAtArrival_ = 0;
    int plotAtReplot_ = 0;
    Clock::time_point arrivedAt_;
    Clock::time_point lastActivity_;
    Clock::time_point lastTick_;
    Clock::duration longestGap_{};
};

Harness::Harness() : d_(std::make_unique<Impl>()) {}

Harness::~Harness() = default;

QSize Harness::pageSize() {
    return kPageSize;
}

void Harness::setModel(std::shared_ptr<const core::Model> model) {
    const auto& c = model->config();
    d_->page_.setModelKinds(core::transformerKinds(c.hasEncoder(), c.hasDecoder()));
    d_->controller_.setModel(std::move(model));
    d_->wait();
}

QString Harness::kindName() const {
    return ui::AttentionText::kindName(d_->state_.kind());
}

HarnessTimes Harness::showText(const std::string& text) {
    d_->expected_ = QString::fromStdString(text);
    return d_->measure(
        [this] {
            d_->controller_.setText(d_->expected_);
            d_->controller_.analyzeNow(); // the window's typing debounce, skipped
        },
        true);
}

HarnessTimes Harness::select(int layer, int head) {
    if (layer == d_->state_.layer() && head == d_->state_.head())
        throw core::Error("layer " + std::to_string(layer) + " head " + std::to_string(head) +
                          " is already selected; selecting it again repaints nothing");
    return d_->measure([this, layer, head] { d_->state_.setSelection(layer, head); }, false);
}

HarnessTimes Harness::load(const QString& dir) {
    std::shared_ptr<const core::Model> model;
    const auto times = d_->load(dir, model);
    setModel(std::move(model));
    return times;
}

int Harness::layer() const {
    return d_->state_.layer();
}

int Harness::head() const {
    return d_->state_.head();
}

std::shared_ptr<const core::AttentionSnapshot> Harness::snapshot() const {
    const auto current = d_->controller_.current();
    return current ? current->snapshot : nullptr;
}

std::size_t tokenCount(const core::Model& model, const std::string& text) {
    return model.config().hasEncoder() ? model.sourceTokens(text).size() : model.targetTokens(text).size();
}

std::string textOfLength(const core::Model& model, int length, std::size_t offset) {
    const auto pool = words(kBenchSentence);
    const auto want = static_cast<std::size_t>(length);
    std::string text;
    for (std::size_t i = offset;; ++i) {
        const auto& w = pool[i % pool.size()];
        auto longer = text.empty() ? w : text + " " + w;
        if (tokenCount(model, longer) > want)
            break;
        text = std::move(longer);
    }
    static const char* const kFillers[] = {" a", "a", ".", ",", "!", " I", "s"};
    for (auto n = tokenCount(model, text); n < want; ++n) {
        bool grew = false;
        for (const char* f : kFillers)
            if (tokenCount(model, text + f) == n + 1) {
                text += f;
                grew = true;
                break;
            }
        if (!grew)
            throw core::InputError("no text of " + std::to_string(length) + " tokens found for " +
                                   model.config().name + "'s tokenizer");
    }
    return text;
}
