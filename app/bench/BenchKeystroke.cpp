#include "app/bench/BenchKeystroke.h"

#include "app/bench/BenchHarness.h"

#include "core/base/Runtime.h"
#include "core/model/Model.h"
#include "ui/run/AnalysisController.h"

#include <QSize>

#include <algorithm>
#include <cstdio>
#include <memory>

namespace {

constexpr uint64_t kWeightSeed = 1;

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
    const auto runs = repeat(plan, [&] { return harness.showText(texts[run++ % 2]); });
    cell.rows.push_back({"keystroke_repaint", "keystroke to repaint",
                         summarize(runs, [](const HarnessTimes& t) { return t.toRepaint; })});
    cell.rows.push_back({"keystroke_result", "  to the result (analysis, queued signal)",
                         summarize(runs, [](const HarnessTimes& t) { return t.toResult; })});
    cell.rows.push_back({"result_repaint", "  result to repaint (page)",
                         summarize(runs, [](const HarnessTimes& t) { return t.toRepaint - t.toResult; })});
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
    r.pageWidth = Harness::pageSize().width();
    r.pageHeight = Harness::pageSize().height();
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
