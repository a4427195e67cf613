#include "BenchKeystroke.h"

#include "BenchTranslation.h"

#include "core/Errors.h"
#include "core/Model.h"
#include "core/Runtime.h"
#include "ui/AnalysisController.h"
#include "ui/AttentionPage.h"
#include "ui/AttentionText.h"
#include "ui/HeatmapView.h"
#include "ui/QCustomPlotInclude.h"
#include "ui/ViewState.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QTimer>

#include <cstdio>
#include <map>
#include <memory>
#include <sstream>

namespace {

using Clock = BenchClock;

// The attention page's size in the window at its default 1400 × 900, so the grid and the heatmap get the
// pixels they get there (about 487 × 570 and 599 × 570 with a one-line text).
const QSize kPageSize(1378, 785);

// The event loop below sleeps until something happens, as the window's does; this keeps it waking up
// often enough to notice that the page has gone quiet.
constexpr int kHeartbeatMs = 5;
// The page counts as repainted once neither view has painted or replotted for this long: a second replot
// that new tick labels queue belongs to the repaint a user waits for.
constexpr double kQuietMs = 40.0;
// Longer than any analysis of the table takes here; past it the run is stuck, not slow.
constexpr int kTimeoutMs = 300000;
constexpr uint64_t kWeightSeed = 1;

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

// Tokens the model reads for a typed text: <bos> pieces <eos> on the source side; <bos> and the prompt for
// a decoder-only model.
std::size_t tokenCount(const core::Model& model, const std::string& text) {
    return model.config().hasEncoder() ? model.sourceTokens(text).size() : model.targetTokens(text).size();
}

// A text of everyday words that the model reads as exactly `length` tokens: whole words while they fit,
// then short pieces that each add one token. A different `offset` starts the words elsewhere, so two texts
// of one length differ and neither run can reuse the other's work.
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

struct Times {
    double toResult = 0.0;  // to the result arriving on the GUI thread, before the page shows it
    double toRepaint = 0.0; // to the last paint of the grid or the heatmap
};

// The window's attention page and controller, wired as MainWindow wires them, shown offscreen.
class Harness {
public:
    Harness() {
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
    }

    void setModel(std::shared_ptr<const core::Model> model) {
        page_.setModelKinds(model->config().hasEncoder());
        controller_.setModel(std::move(model));
        wait();
    }

    QString kindName() const { return ui::AttentionText::kindName(state_.kind()); }

    Times once(const std::string& text) {
        expected_ = QString::fromStdString(text);
        arrived_ = replotted_ = false;
        failure_.clear();
        int seen = paints_.paints(grid_) + paints_.paints(plot_);
        QTimer heartbeat;
        heartbeat.start(kHeartbeatMs);
        QElapsedTimer waited;
        waited.start();
        const auto t0 = Clock::now();
        controller_.setText(expected_);
        controller_.analyzeNow(); // the window's typing debounce, skipped
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
        wait();
        return {ms(arrivedAt_ - t0), ms(lastPaint - t0)};
    }

    void wait() {
        if (!controller_.waitUntilIdle(kTimeoutMs))
            throw core::Error("the analysis did not finish within " + std::to_string(kTimeoutMs / 1000) +
                              " s");
    }

private:
    ui::ViewState state_;
    ui::AnalysisController controller_;
    PaintCounter paints_; // before the page, so it outlives the widgets it watches
    ui::AttentionPage page_{&state_};
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
};

KeystrokeCell measureLength(Harness& harness, const std::shared_ptr<const core::Model>& loaded,
                            const KeystrokeTarget& target, const Plan& plan, int threads) {
    KeystrokeCell cell;
    cell.length = target.length;
    cell.targetMs = target.medianMs;
    auto model = loaded;
    const auto& c = loaded->config();
    if (target.length > c.maxLen) {
        // Only max_len differs: the same shape and tokenizer cost the same per token.
        auto raised = c;
        raised.maxLen = target.length;
        model =
            core::Model::createRandom(raised, c.hasEncoder() ? loaded->sourceTokenizer().clone() : nullptr,
                                      loaded->targetTokenizer().clone(), kWeightSeed);
        core::configureThreads(threads); // creating a model resets it
        cell.weights = "random (seed " + std::to_string(kWeightSeed) + ")";
        cell.note =
            "max_len raised from " + std::to_string(c.maxLen) + " to " + std::to_string(target.length);
    } else {
        cell.weights = loaded->directory();
    }
    const std::string texts[] = {textOfLength(*model, target.length, 0),
                                 textOfLength(*model, target.length, 7)};
    harness.setModel(model);
    int run = 0;
    const auto runs = repeat(plan, [&] { return harness.once(texts[run++ % 2]); });
    cell.rows.push_back({"keystroke_repaint", "keystroke to repaint",
                         summarize(runs, [](const Times& t) { return t.toRepaint; })});
    cell.rows.push_back({"keystroke_result", "  to the result (analysis, queued signal)",
                         summarize(runs, [](const Times& t) { return t.toResult; })});
    cell.rows.push_back({"result_repaint", "  result to repaint (page)",
                         summarize(runs, [](const Times& t) { return t.toRepaint - t.toResult; })});
    return cell;
}

} // namespace

const std::vector<KeystrokeTarget>& keystrokeTargets() {
    static const std::vector<KeystrokeTarget> targets{{64, 16.0}, {1024, 100.0}};
    return targets;
}

KeystrokeReport measureKeystroke(const std::string& modelDir, const Plan& plan, int threads,
                                 const std::function<void(const std::string&)>& progress) {
    progress("keystroke (loading the model)");
    const auto loaded = core::Model::load(modelDir);
    core::configureThreads(threads);
    KeystrokeReport r;
    r.modelName = loaded->config().name;
    r.pageWidth = kPageSize.width();
    r.pageHeight = kPageSize.height();
    r.debounceMs = ui::AnalysisController::kDebounceMs;
    Harness harness;
    for (const auto& target : keystrokeTargets()) {
        progress("keystroke T=" + std::to_string(target.length));
        r.cells.push_back(measureLength(harness, loaded, target, plan, threads));
    }
    r.kind = harness.kindName().toStdString();
    return r;
}

void printText(const KeystrokeReport& r) {
    std::printf(
        "   a new source text of T tokens, until the attention page has repainted its grid and heatmap: the\n"
        "   analysis on the worker thread, the queued result, the repaint. Times in ms as median [min-max];\n"
        "   the %d ms pause the window waits for after the last keystroke is not included.\n\n",
        r.debounceMs);
    std::printf("%s: the attention page at the window's default size (%dx%d), showing %s, layer 0 head 0\n",
                r.modelName.c_str(), r.pageWidth, r.pageHeight, r.kind.c_str());
    std::vector<std::string> labels{""};
    std::vector<std::vector<std::string>> columns;
    for (const auto& cell : r.cells) {
        std::vector<std::string> column{"T=" + std::to_string(cell.length)};
        for (const auto& row : cell.rows) {
            if (columns.empty())
                labels.push_back(row.label + " (" + row.unit + ")");
            column.push_back(cellText(row));
        }
        const auto& total = cell.rows.front().stat.median;
        column.push_back(number(cell.targetMs) + (total <= cell.targetMs ? " (met)" : " (missed)"));
        columns.push_back(std::move(column));
    }
    labels.push_back("target for the median (ms)");
    std::size_t labelWidth = 0, width = 0;
    for (const auto& l : labels)
        labelWidth = std::max(labelWidth, l.size());
    for (const auto& column : columns)
        for (const auto& t : column)
            width = std::max(width, t.size());
    for (std::size_t i = 0; i < labels.size(); ++i) {
        std::string line = "  " + labels[i] + std::string(labelWidth - labels[i].size(), ' ');
        for (const auto& column : columns)
            line += "  " + column[i] + std::string(width - column[i].size(), ' ');
        line.erase(line.find_last_not_of(' ') + 1);
        std::printf("%s\n", line.c_str());
    }
    for (const auto& cell : r.cells)
        std::printf("  T=%d: weights %s%s%s\n", cell.length, cell.weights.c_str(),
                    cell.note.empty() ? "" : "; ", cell.note.c_str());
}

nlohmann::ordered_json toJson(const KeystrokeReport& r) {
    nlohmann::ordered_json j;
    j["model"] = r.modelName;
    j["kind"] = r.kind;
    j["page"] = {r.pageWidth, r.pageHeight};
    j["debounce_ms_not_included"] = r.debounceMs;
    j["cells"] = nlohmann::ordered_json::array();
    for (const auto& cell : r.cells) {
        nlohmann::ordered_json k;
        k["T"] = cell.length;
        k["weights"] = cell.weights;
        k["note"] = cell.note;
        k["target_ms"] = cell.targetMs;
        k["target_met"] = !cell.rows.empty() && cell.rows.front().stat.median <= cell.targetMs;
        k["rows"] = toJson(cell.rows);
        j["cells"].push_back(std::move(k));
    }
    return j;
}
