// `attnscope bench`: how long the program takes for what a user does. Four sections: end-to-end translation
// of one sentence through the session (BenchTranslation), the table of analysis, decode-step and paint cost
// by model size and length (BenchTable, BenchPaint), a new text's way to the repainted attention page
// (BenchKeystroke), and a long input through GPT-2 small's shape in that page (BenchLong). This file parses
// the options, runs the sections and prints them.

#include "app/Args.h"
#include "app/BuiltinModels.h"
#include "app/Commands.h"
#include "app/OffscreenApp.h"
#include "app/ProgressLine.h"
#include "app/RunCommand.h"
#include "app/bench/BenchAnalyses.h"
#include "app/bench/BenchHelp.h"
#include "app/bench/BenchInside.h"
#include "app/bench/BenchKeystroke.h"
#include "app/bench/BenchLong.h"
#include "app/bench/BenchMeasure.h"
#include "app/bench/BenchModels.h"
#include "app/bench/BenchPaint.h"
#include "app/bench/BenchProducts.h"
#include "app/bench/BenchRecurrent.h"
#include "app/bench/BenchSoak.h"
#include "app/bench/BenchTable.h"
#include "app/bench/BenchTranslation.h"

#include "core/base/Runtime.h"

#include <QApplication>

#include <algorithm>
#include <clocale>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace {

// Bounds keep a typo (an extra zero or two) from turning a benchmark into an afternoon.
int boundedInt(const std::string& key, long long v, int lo, int hi) {
    if (v < lo || v > hi)
        throw UsageError(key + " expects a number from " + std::to_string(lo) + " to " + std::to_string(hi) +
                         ", got " + std::to_string(v));
    return static_cast<int>(v);
}

int boundedInt(const Args& a, const std::string& key, int fallback, int lo, int hi) {
    return boundedInt(key, a.getInt(key, fallback), lo, hi);
}

std::vector<std::string> splitList(const std::string& key, const std::string& text) {
    std::vector<std::string> items;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ','))
        if (!item.empty())
            items.push_back(item);
    if (items.empty())
        throw UsageError(key + " needs at least one entry");
    return items;
}

std::vector<int> parseLengths(const std::string& text) {
    std::vector<int> lengths;
    for (const auto& item : splitList("--lengths", text)) {
        std::size_t used = 0;
        long long v = 0;
        try {
            v = std::stoll(item, &used);
        } catch (const std::exception&) {
        }
        if (used != item.size() || used == 0)
            throw UsageError("--lengths: '" + item + "' is not a whole number");
        lengths.push_back(boundedInt("--lengths", v, 1, 65536));
    }
    return lengths;
}

/// What the command was asked to do.
struct Options {
    Plan plan;
    int threads = 0;
    std::string modelDir;
    std::string src;
    std::vector<std::string> sizes;
    TableOptions table;
    bool translation = true;
    bool tables = true;
    bool keystroke = true;
    bool longInput = true;
    bool soak = false;
    bool inside = true;
    bool analyses = true;
    bool recurrent = true;
    bool products = true;
    std::string recurrentWeights; // empty: random weights
    int soakSteps = 10000;
    int soakAnalyses = 2000;
    int longLength = kLongDefaultLength;
    std::string longModel; // empty: GPT-2 small's shape on random weights
    Plan longPlan = kLongPlan;
    bool gui = true;
    bool json = false;
};

Options parse(const Args& a) {
    Options o;
    const bool quick = a.has("--quick");
    o.plan.runs = boundedInt(a, "--runs", quick ? 3 : o.plan.runs, 1, 100000);
    o.plan.warmup = boundedInt(a, "--warmup", quick ? 1 : o.plan.warmup, 0, 100000);
    o.threads = a.has("--threads") ? boundedInt(a, "--threads", 0, 1, 1024) : 0;
    o.src = a.get("--src", kBenchSentence);
    if (wordCount(o.src) == 0)
        throw UsageError("--src is empty");
    o.modelDir = a.get("--model", defaultModelDir());
    if (o.modelDir.empty())
        throw UsageError(builtinModelsMissing());
    o.sizes = splitList("--sizes", a.get("--sizes", "default,medium,gpt2"));
    o.table.lengths = parseLengths(a.get("--lengths", "16,64,256,1024"));
    o.table.plan = o.plan;
    o.table.greedy = a.has("--greedy") ? boundedInt(a, "--greedy", 0, 1, 4096) : 0;
    o.gui = !a.has("--no-gui");
    if (o.gui)
        o.table.snapshotMeasures.push_back(measurePaint);
    // One long analysis takes seconds: the long section has its own, smaller, default plan.
    o.longPlan.runs = a.has("--runs") ? o.plan.runs : quick ? 1 : kLongPlan.runs;
    o.longPlan.warmup = a.has("--warmup") ? o.plan.warmup : quick ? 0 : kLongPlan.warmup;
    o.longLength = boundedInt(a, "--long-length", kLongDefaultLength, 2, 4096);
    o.longModel = a.get("--long-model", "");
    const auto only = a.get("--only", "");
    if (!only.empty() && only != "translation" && only != "table" && only != "keystroke" && only != "long" &&
        only != "soak" && only != "inside" && only != "recurrent" && only != "analyses" && only != "products")
        throw UsageError("--only expects translation, table, keystroke, long, inside, analyses, recurrent, "
                         "products or soak, "
                         "got '" +
                         only + "'");
    if ((only == "keystroke" || only == "long" || only == "inside") && !o.gui)
        throw UsageError("--only " + only + " paints widgets; it does not go with --no-gui");
    o.translation = only.empty() || only == "translation";
    o.tables = only.empty() || only == "table";
    o.keystroke = o.gui && (only.empty() || only == "keystroke");
    o.longInput = o.gui && (only.empty() || only == "long");
    o.soak = only == "soak";
    o.inside = o.gui && (only.empty() || only == "inside");
    o.recurrent = only.empty() || only == "recurrent";
    o.products = only.empty() || only == "products";
    o.analyses = only.empty() || only == "analyses";
    o.recurrentWeights = a.get("--recurrent-weights");
    if (!o.recurrentWeights.empty() && !o.recurrent)
        throw UsageError("--recurrent-weights goes with the recurrent section");
    o.soakSteps = boundedInt(a, "--soak-steps", o.soakSteps, 1, 10000000);
    o.soakAnalyses = boundedInt(a, "--soak-analyses", o.soakAnalyses, 1, 10000000);
    o.json = a.has("--json");
    return o;
}

// The large cells take minutes: a terminal shows which one is running, on one line that the table's next
// block overwrites; a log (stderr not a terminal) gets a line per cell only around JSON, which prints last.
class Progress {
public:
    explicit Progress(bool json) : json_(json) {}
    void operator()(const std::string& what) const {
        if (out_.tty())
            out_.show("attnscope bench: measuring " + what + " ...");
        else if (json_)
            out_.show("attnscope bench: measuring " + what);
    }
    void done() const { out_.clear(); }

private:
    ProgressLine out_;
    bool json_;
};

// The plan every section but the long one follows; the long one's is printed beside it when it differs.
void printHeader(const Machine& m, const Options& o) {
    std::printf("attnscope bench\n");
    std::printf("machine   %s (%s), %d threads, OpenBLAS %s, LibTorch %s, %s, packed weights %s\n",
                m.cpu.c_str(), m.device.c_str(), m.threads,
                m.openblas.empty() ? "not in use" : m.openblas.c_str(), m.torch.c_str(), m.ompWait.c_str(),
                m.packed.c_str());
    const bool others =
        o.translation || o.tables || o.keystroke || o.recurrent || o.inside || o.analyses || o.products;
    const bool samePlan = o.longPlan.runs == o.plan.runs && o.longPlan.warmup == o.plan.warmup;
    const auto& plan = others ? o.plan : o.longPlan;
    if (!others || !o.longInput || samePlan)
        std::printf("runs      %d timed after %d warm-up, for every measure\n", plan.runs, plan.warmup);
    else
        std::printf("runs      %d timed after %d warm-up; the long section %d timed after %d warm-up\n",
                    o.plan.runs, o.plan.warmup, o.longPlan.runs, o.longPlan.warmup);
    std::fflush(stdout);
}

// Every section's report, kept to the end for the JSON, which prints them all at once.
struct Reports {
    std::optional<TranslationReport> translation;
    std::vector<SizeReport> sizes;
    std::optional<KeystrokeReport> keystroke;
    std::optional<LongReport> longInput;
    std::optional<InsideReport> inside;
    std::optional<AnalysesReport> analyses;
    std::optional<RecurrentReport> recurrent;
    std::optional<ProductsReport> products;
    std::optional<SoakReport> soak;
};

// The text output's header (and the translation, measured first), printed before the slower sections run.
void printIntro(const Machine& machine, const Options& o,
                const std::optional<TranslationReport>& translation) {
    printHeader(machine, o);
    if (translation) {
        std::printf("\n");
        printText(*translation);
    }
    if (o.tables)
        std::printf("\n== Analysis and decoding by model size and length T\n%s", kBenchTableLegend);
    std::fflush(stdout);
}

// Each size prints as soon as it is measured: the large ones take minutes.
std::vector<SizeReport> runTableSection(const Options& o, const Progress& progress) {
    std::vector<SizeReport> sizes;
    const auto longest = *std::max_element(o.table.lengths.begin(), o.table.lengths.end());
    for (const auto& entry : o.sizes) {
        progress(entry + " (making the model)");
        const auto size = makeBenchSize(entry, o.modelDir, longest, o.threads);
        sizes.push_back(measureSize(size, o.table, progress));
        progress.done();
        if (!o.json) {
            std::printf("\n");
            printText(sizes.back());
            std::fflush(stdout);
        }
    }
    return sizes;
}

// The sections that paint widgets offscreen: the keystroke, the long input and the Inside page.
void runWidgetSections(const Options& o, const Progress& progress, Reports& r) {
    if (o.keystroke) {
        if (!o.json) {
            std::printf("\n== Keystroke to repaint\n");
            std::fflush(stdout);
        }
        r.keystroke = measureKeystroke(o.modelDir, o.plan, o.threads, progress);
        progress.done();
        if (!o.json)
            printText(*r.keystroke);
    }

    if (o.longInput) {
        if (!o.json) {
            if (o.longModel.empty())
                std::printf("\n== Long input: %d tokens through GPT-2 small's shape\n", o.longLength);
            else
                std::printf("\n== Long input: %d tokens through %s\n", o.longLength, o.longModel.c_str());
            std::fflush(stdout);
        }
        r.longInput = measureLong(o.longLength, o.longPlan, o.threads, progress, o.longModel);
        progress.done();
        if (!o.json)
            printText(*r.longInput);
    }

    if (o.inside) {
        if (!o.json) {
            std::printf("\n== Inside: a row or head change until the Inside page has repainted\n");
            std::fflush(stdout);
        }
        r.inside = measureInside(o.modelDir, o.plan, o.threads, progress);
        progress.done();
        if (!o.json)
            printText(*r.inside);
    }
}

// The sections that need no widgets: the analyses, the recurrent models, the products alone and the soak.
void runOtherSections(const Options& o, const Progress& progress, Reports& r) {
    if (o.analyses) {
        if (!o.json) {
            std::printf("\n== Analyses: rollout, flow, heads switched off, value weighting\n");
            std::fflush(stdout);
        }
        r.analyses = measureAnalyses(o.modelDir, o.plan, o.threads, progress);
        progress.done();
        if (!o.json)
            printText(*r.analyses);
    }

    if (o.recurrent) {
        progress("the recurrent models");
        r.recurrent = measureRecurrent(o.plan, o.recurrentWeights);
        progress.done();
        if (!o.json)
            printText(*r.recurrent);
    }

    if (o.products) {
        progress("matrix products alone");
        r.products = measureProducts(o.plan);
        progress.done();
        if (!o.json)
            printText(*r.products);
    }

    if (o.soak) {
        if (!o.json) {
            std::printf("\n== Soak: a long session in one process\n");
            std::fflush(stdout);
        }
        if (builtinModelsDir().empty())
            throw UsageError("the soak runs the built-in language model: " + builtinModelsMissing());
        r.soak =
            measureSoak({o.modelDir, builtinModelsDir() + "/tiny-lm"}, o.soakSteps, o.soakAnalyses, progress);
        progress.done();
        if (!o.json)
            printText(*r.soak);
    }
}

// JSON prints last, whole, so stdout holds one document however long the sections took.
void printJson(const Machine& machine, const Options& o, const Reports& r) {
    nlohmann::ordered_json j;
    j["machine"] = toJson(machine);
    // A long section run alone follows its own plan; with others, its JSON carries it.
    const bool longOnly = !o.translation && !o.tables && !o.keystroke && !o.inside && !o.recurrent &&
                          !o.analyses && !o.products;
    j["warmup"] = longOnly ? o.longPlan.warmup : o.plan.warmup;
    j["runs"] = longOnly ? o.longPlan.runs : o.plan.runs;
    if (r.translation)
        j["translation"] = toJson(*r.translation);
    if (o.tables) {
        j["lengths"] = o.table.lengths;
        j["greedy"] = o.table.greedy;
        j["sizes"] = nlohmann::ordered_json::array();
        for (const auto& s : r.sizes)
            j["sizes"].push_back(toJson(s));
    }
    if (r.keystroke)
        j["keystroke"] = toJson(*r.keystroke);
    if (r.longInput)
        j["long"] = toJson(*r.longInput);
    if (r.inside)
        j["inside"] = toJson(*r.inside);
    if (r.analyses)
        j["analyses"] = toJson(*r.analyses);
    if (r.recurrent)
        j["recurrent"] = toJson(*r.recurrent);
    if (r.products)
        j["products"] = toJson(*r.products);
    if (r.soak)
        j["soak"] = toJson(*r.soak);
    std::cout << j.dump(2) << "\n";
}

} // namespace

int runBench(const std::vector<std::string>& args) {
    return runCommand(
        "bench", kBenchHelp,
        {{"--model", "--src", "--runs", "--warmup", "--threads", "--sizes", "--lengths", "--greedy", "--only",
          "--long-length", "--long-model", "--soak-steps", "--soak-analyses", "--recurrent-weights"},
         {"--json", "--quick", "--no-gui"},
         [] { ProgressLine().clear(); }},
        args, [&](const Args& a) {
            const auto o = parse(a);
            const Progress progress(o.json);
            std::unique_ptr<QApplication> app;
            if (o.gui && (o.tables || o.keystroke || o.longInput || o.inside))
                app = offscreenApplication();

            Reports r;
            if (o.translation)
                r.translation = measureTranslation(o.modelDir, o.src, o.plan, o.threads);
            else
                core::configureThreads(o.threads);
            auto machine = thisMachine(); // after the thread count is set
            if (r.translation)
                machine.device = r.translation->device;
            if (!o.json)
                printIntro(machine, o, r.translation);

            if (o.tables)
                r.sizes = runTableSection(o, progress);
            runWidgetSections(o, progress, r);
            runOtherSections(o, progress, r);
            if (o.json)
                printJson(machine, o, r);
            return 0;
        });
}
