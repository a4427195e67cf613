#include "app/bench/BenchLong.h"

#include "app/bench/BenchHarness.h"
#include "app/bench/BenchModels.h"

#include "core/base/Errors.h"
#include "core/model/Model.h"
#include "core/run/AttentionSnapshot.h"

#include <QSize>

#include <sys/resource.h>

#include <algorithm>
#include <cstdio>

namespace {

// The requirement for long inputs: nothing freezes the window for more than 100 ms, and a snapshot takes
// at most 1 GiB.
constexpr double kStallLimitMs = 100.0;
constexpr std::size_t kSnapshotLimitBytes = std::size_t(1) << 30;

// One layer and head far from the first one, so the detail view has other weights to show; clamped to
// the model's shape.
constexpr int kOtherLayer = 11;
constexpr int kOtherHead = 5;

struct Run {
    HarnessTimes text;
    HarnessTimes head;
};

std::size_t peakResidentBytes() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<std::size_t>(usage.ru_maxrss) * 1024; // Linux counts it in KiB
}

double mb(std::size_t bytes) {
    return static_cast<double>(bytes) / 1e6;
}

// What the snapshot holds, the way BenchTable counts it: attention as stored, plus the log-probabilities.
void measureSnapshot(const core::AttentionSnapshot& s, LongReport& r) {
    r.tokens = static_cast<int>(s.tgtTokens.empty() ? s.srcTokens.size() : s.tgtTokens.size());
    for (const auto* b : {&s.encoder, &s.decoder, &s.cross}) {
        r.attentionBytes += b->bytes();
        r.denseBytes += static_cast<std::size_t>(b->layers) * static_cast<std::size_t>(b->heads) *
                        static_cast<std::size_t>(b->queries) * static_cast<std::size_t>(b->keys) *
                        sizeof(float);
    }
    r.logProbBytes = s.nextTokenLogProbs.size() * sizeof(float);
}

} // namespace

LongReport measureLong(int length, const Plan& plan, int threads,
                       const std::function<void(const std::string&)>& progress, const std::string& modelDir) {
    const auto what = "long T=" + std::to_string(length);
    progress(what + (modelDir.empty() ? " (making the model)" : " (loading the model)"));
    const auto size =
        modelDir.empty() ? makeGpt2Size(length, threads) : loadLongSize(modelDir, length, threads);
    const auto& c = size.model->config();
    LongReport r;
    r.modelName = c.name;
    r.shape = describeShape(c);
    r.weights = size.weights;
    r.note = size.note;
    r.length = length;
    r.pageWidth = Harness::pageSize().width();
    r.pageHeight = Harness::pageSize().height();
    r.plan = plan;
    const int layers = c.hasDecoder() ? c.decoderLayers : c.encoderLayers;
    r.heads = {{std::min(kOtherLayer, layers - 1), std::min(kOtherHead, c.heads - 1)}, {0, 0}};
    // Two texts in turn, so no run can reuse the previous one's work.
    const std::string texts[] = {textOfLength(*size.model, length, 0), textOfLength(*size.model, length, 7)};
    double worstStall = 0.0;
    {
        Harness harness;
        harness.setModel(size.model);
        progress(what);
        int run = 0;
        const auto runs = repeat(plan, [&] {
            Run out;
            out.text = harness.showText(texts[run++ % 2]);
            // Whichever of the two is not shown now, so the selection always changes.
            const auto& shown = r.heads[0];
            const auto& to =
                harness.layer() == shown.first && harness.head() == shown.second ? r.heads[1] : shown;
            out.head = harness.select(to.first, to.second);
            return out;
        });
        for (const auto& x : runs)
            worstStall = std::max({worstStall, x.text.longestStall, x.head.longestStall});
        r.kind = harness.kindName().toStdString();
        const auto snapshot = harness.snapshot();
        if (!snapshot)
            throw core::Error("the page showed no snapshot after the last run");
        measureSnapshot(*snapshot, r);
        r.rows.push_back({"text_repaint", "text to repaint",
                          summarize(runs, [](const Run& x) { return x.text.toRepaint; })});
        r.rows.push_back({"text_result", "  to the result (analysis, queued signal)",
                          summarize(runs, [](const Run& x) { return x.text.toResult; })});
        r.rows.push_back({"text_stall", "  longest stall",
                          summarize(runs, [](const Run& x) { return x.text.longestStall; })});
        r.rows.push_back({"head_repaint", "another layer and head to repaint",
                          summarize(runs, [](const Run& x) { return x.head.toRepaint; })});
        r.rows.push_back({"head_stall", "  longest stall",
                          summarize(runs, [](const Run& x) { return x.head.longestStall; })});
        // A folder of one's own is also opened as the window opens it, off the GUI thread, which must go on
        // answering while hundreds of megabytes are read.
        if (!modelDir.empty()) {
            progress(what + " (opening the folder in the window)");
            const auto loads = repeat(plan, [&] {
                Run out;
                out.text = harness.load(QString::fromStdString(modelDir));
                return out;
            });
            for (const auto& x : loads)
                worstStall = std::max(worstStall, x.text.longestStall);
            r.rows.push_back({"open_loaded", "open the folder until loaded (off the GUI thread)",
                              summarize(loads, [](const Run& x) { return x.text.toResult; })});
            r.rows.push_back({"open_stall", "  longest stall",
                              summarize(loads, [](const Run& x) { return x.text.longestStall; })});
        }
    }
    r.peakResidentBytes = peakResidentBytes();
    const auto snapshotBytes = r.attentionBytes + r.logProbBytes;
    r.rows.push_back(
        {"snapshot", "snapshot (attention + log-probs)", constantStat(mb(snapshotBytes), plan.runs), "MB"});
    r.rows.push_back({"peak_rss", "peak resident memory (process)",
                      constantStat(mb(r.peakResidentBytes), plan.runs), "MB"});

    r.targets.push_back({"stall", "longest stall <= 100 ms", kStallLimitMs, worstStall, "ms"});
    r.targets.push_back({"snapshot", "snapshot <= 1 GiB (" + number(mb(kSnapshotLimitBytes)) + " MB)",
                         mb(kSnapshotLimitBytes), mb(snapshotBytes), "MB"});
    return r;
}

void printText(const LongReport& r) {
    std::printf(
        "   a text of T tokens set in the window's attention page (%dx%d) until its grid and heatmap have\n"
        "   repainted, then the detail view switched to another layer and head (layer %d head %d and layer "
        "%d\n"
        "   head %d in turn) until the page has repainted. The longest stall is the longest the GUI thread\n"
        "   went without getting back to its event loop (the longest gap between ticks of a %d ms timer, "
        "less\n"
        "   %d ms), until the analysis is done. Times in ms as median [min-max] of %d timed run%s after %d\n"
        "   warm-up.\n\n",
        r.pageWidth, r.pageHeight, r.heads[0].first, r.heads[0].second, r.heads[1].first, r.heads[1].second,
        Harness::kStallTickMs, Harness::kStallTickMs, r.plan.runs, r.plan.runs == 1 ? "" : "s",
        r.plan.warmup);
    std::printf("%s: %s\n", r.modelName.c_str(), r.shape.c_str());
    std::printf("  weights %s%s%s; showing %s, %d tokens\n", r.weights.c_str(), r.note.empty() ? "" : "; ",
                r.note.c_str(), r.kind.c_str(), r.tokens);

    std::vector<std::pair<std::string, std::string>> lines{{"", "T=" + std::to_string(r.length)}};
    for (const auto& row : r.rows)
        lines.emplace_back(row.label + " (" + row.unit + ")", cellText(row));
    for (const auto& t : r.targets)
        lines.emplace_back("target: " + t.label, number(t.value) + (t.met() ? " (met)" : " (missed)"));
    std::size_t width = 0;
    for (const auto& l : lines)
        width = std::max(width, l.first.size());
    for (const auto& [label, value] : lines) {
        std::string line = "  " + label + std::string(width - label.size(), ' ') + "  " + value;
        line.erase(line.find_last_not_of(' ') + 1);
        std::printf("%s\n", line.c_str());
    }
    const auto storage = r.attentionBytes == r.denseBytes
                             ? std::string("float32 in every cell")
                             : "compact, " +
                                   number(100.0 * static_cast<double>(r.attentionBytes) /
                                          static_cast<double>(std::max<std::size_t>(1, r.denseBytes))) +
                                   "% of float32 in every cell";
    std::printf("  snapshot: attention %s MB (%s), log-probs %s MB\n", number(mb(r.attentionBytes)).c_str(),
                storage.c_str(), number(mb(r.logProbBytes)).c_str());
    std::printf("  the stall target holds the worst stall of any run; peak memory is the whole process's\n");
}

nlohmann::ordered_json toJson(const LongReport& r) {
    nlohmann::ordered_json j;
    j["model"] = r.modelName;
    j["shape"] = r.shape;
    j["weights"] = r.weights;
    j["note"] = r.note;
    j["T"] = r.length;
    j["tokens"] = r.tokens;
    j["kind"] = r.kind;
    j["page"] = {r.pageWidth, r.pageHeight};
    j["warmup"] = r.plan.warmup;
    j["runs"] = r.plan.runs;
    j["heads"] = nlohmann::ordered_json::array();
    for (const auto& [layer, head] : r.heads)
        j["heads"].push_back({{"layer", layer}, {"head", head}});
    j["stall_tick_ms"] = Harness::kStallTickMs;
    j["attention_bytes"] = r.attentionBytes;
    j["attention_dense_bytes"] = r.denseBytes;
    j["logprob_bytes"] = r.logProbBytes;
    j["snapshot_bytes"] = r.attentionBytes + r.logProbBytes;
    j["peak_rss_bytes"] = r.peakResidentBytes;
    j["rows"] = toJson(r.rows);
    j["targets"] = nlohmann::ordered_json::array();
    for (const auto& t : r.targets)
        j["targets"].push_back({{"id", t.id},
                                {"label", t.label},
                                {"unit", t.unit},
                                {"limit", t.limit},
                                {"value", t.value},
                                {"met", t.met()}});
    return j;
}
