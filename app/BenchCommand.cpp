// `attnscope bench`: how long the program takes for what a user does. Four sections: end-to-end translation
// of one sentence through the session (BenchTranslation), the table of analysis, decode-step and paint cost
// by model size and length (BenchTable, BenchPaint), a new text's way to the repainted attention page
// (BenchKeystroke), and a long input through GPT-2 small's shape in that page (BenchLong). This file parses
// the options, runs the sections and prints them.

#include "Args.h"
#include "BenchInside.h"
#include "BenchKeystroke.h"
#include "BenchLong.h"
#include "BenchMeasure.h"
#include "BenchModels.h"
#include "BenchPaint.h"
#include "BenchSoak.h"
#include "BenchTable.h"
#include "BenchTranslation.h"
#include "BuiltinModels.h"
#include "Commands.h"
#include "ProgressLine.h"
#include "RunCommand.h"

#include "core/base/Runtime.h"

#include <QApplication>

#include <unistd.h>

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

const char* kHelp =
    R"(usage: attnscope bench [--model DIR] [--src TEXT] [--sizes LIST] [--lengths LIST] [--runs N]
                       [--warmup W] [--quick] [--threads N] [--greedy N] [--long-length N] [--only PART]
                       [--no-gui] [--json]

Times what the window does, in five sections. Loading and creating models is not timed. Every measure has
W untimed warm-up runs, then N timed runs, and gives their median, min and max. Widgets are painted
offscreen (QT_QPA_PLATFORM=offscreen unless that variable says otherwise).

translation  a sentence typed and decoded to the end through the session, as the window drives it
             (tokenize and encode, greedy steps with the KV cache until <eos> or max_len, every attention
             row captured, then the snapshot the views are given), on the model's own weights
table        for each model size and length T, on fixed token ids:
  analysis     encode T source tokens and decode T target tokens teacher-forced (for a decoder-only
               model, a T-token prompt), every attention captured, and the next-token distribution
  capture off  the same analysis without capture; capture cost is on / off, run by run
  snapshot     megabytes of the captured attention and log-probabilities of the analysis
  decode step  one KV-cached step at position T after T tokens, captured as the window steps
               (at max_len - 1 when T fills the context)
  greedy       with --greedy N: encode the source, then decode N tokens greedily (encoder-decoder only)
  paint grid   the layer x head grid given the analysis's snapshot and painted, every head and the means,
               at its size in the window (487x570); cross-attention, or decoder self-attention for a
               decoder-only model. All tiles pooled at once (the window spreads a large block's pooling
               over 25 ms slices)
  paint detail the same for the detail heatmap of layer 0, head 0 (599x570)
keystroke    --model's text of T = 64 and T = 1024 tokens set in the window's attention page (1378x785),
             until its grid and heatmap have repainted: the analysis on the worker thread, the queued
             result, the page's repaint; the 30 ms typing debounce is left out. A T beyond the model's
             max_len runs on random weights of its shape and tokenizer with max_len raised to T.
             Targets for the median: 16 ms at T = 64, 100 ms at T = 1024
long         GPT-2 small's shape (random weights, max_len raised to T) given a text of T tokens
             (--long-length, default 2048) in the same page, until its grid and heatmap have repainted;
             then the detail view switched to layer 11 head 5 and layer 0 head 0 in turn, until the page
             has repainted. For each, the longest stall: the longest the GUI thread went without getting
             back to its event loop (the longest gap between ticks of a 5 ms timer, less 5 ms). Also the
             snapshot's megabytes and the process's peak resident memory. 3 timed runs after 1 warm-up
             unless --runs or --warmup say otherwise (--quick: 1 after 0).
             Targets: longest stall <= 100 ms, snapshot <= 1 GiB
inside       the Inside page following a change of row or (alternately) head: the row recomputed as the
             worker does (Session::inside, the sampling pipeline) and drawn until the page (1380x760) has
             repainted; cross-attention of the default size at T = 64 (a 64-token source and target) and
             decoder self-attention of GPT-2 small's shape at T = 1024 (a 1,024-token prompt), last layer.
             Targets for the median: 30 ms at T = 64, 100 ms at T = 1024
soak         (only with --only soak: it takes minutes) --model and the shipped language model in turn, each
             turn a new sentence analysed and 5 steps decoded, a snapshot after each, until --soak-steps
             steps (default 10000) and --soak-analyses analyses (default 2000); resident memory, file
             descriptors and threads every 100 analyses after a 10 % warm-up.
             Targets: resident memory within 5 % of the first sample; descriptors and threads flat

  --model DIR     the translation model, and the shape of the "default" size (default: the built-in
                  default model)
  --src TEXT      the source sentence (default: a 20-word everyday English sentence)
  --sizes LIST    comma-separated, each one of
                    default  the shape of --model, random weights; max_len raised to fit the longest T
                    medium   encoder-decoder, 6+6 layers, d_model 512, 8 heads, d_ff 2048, vocab 8000,
                             random weights (the seed's make_model defaults); max_len as for default
                    gpt2     GPT-2 small's shape: decoder-only, 12 layers, d_model 768, 12 heads, d_ff 3072,
                             vocab 50257, learned positions, max_len 1024, random weights
                    DIR      a model directory, with its own weights and max_len
                  (default: default,medium,gpt2)
  --lengths LIST  comma-separated lengths T, 1 to 65536 (default: 16,64,256,1024)
  --runs N        timed runs, at least 1 (default 20; the long section 3)
  --warmup W      untimed runs before them, 0 or more (default 3; the long section 1)
  --quick         1 warm-up and 3 timed runs (the long section: 1 run, no warm-up), unless --warmup or
                  --runs say otherwise: a check that it works, not numbers to quote
  --threads N     intra-op threads, at least 1 (default: every core, as the program uses)
  --greedy N      add the greedy row, N from 1 to 4096 (scripts/bench-vs-seed.sh compares it with the
                  seed's decoding loop)
  --long-length N the long section's T, 2 to 4096 (default 2048)
  --long-model DIR  a decoder-only model for the long section instead of the random GPT-2 shape (a
                  GPT-2 checkpoint, say), its weights and max_len as they are
  --only PART     translation, table, keystroke, long, inside or soak: run that section alone
  --soak-steps N, --soak-analyses N  the soak's totals
  --no-gui        leave out what paints widgets: the paint rows and the keystroke, long and inside sections
  --json          print the same as one JSON object
Exit status: 0 on success, 2 on bad arguments or input.
)";

const char* kTableLegend =
    R"(   encoder-decoder: T source tokens and T target tokens; decoder-only: a T-token prompt.
   Times in ms as median [min-max]; capture cost as the ratio on / off; the decode step at position T.
)";

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
        only != "soak" && only != "inside")
        throw UsageError("--only expects translation, table, keystroke, long, inside or soak, got '" + only +
                         "'");
    if ((only == "keystroke" || only == "long" || only == "inside") && !o.gui)
        throw UsageError("--only " + only + " paints widgets; it does not go with --no-gui");
    o.translation = only.empty() || only == "translation";
    o.tables = only.empty() || only == "table";
    o.keystroke = o.gui && (only.empty() || only == "keystroke");
    o.longInput = o.gui && (only.empty() || only == "long");
    o.soak = only == "soak";
    o.inside = o.gui && (only.empty() || only == "inside");
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

QtMessageHandler defaultHandler = nullptr;

// The offscreen platform warns, each time a window is shown, that it cannot pass size hints to a window
// manager it does not have; between the tables that line is noise, everything else still goes through.
void offscreenMessages(QtMsgType type, const QMessageLogContext& context, const QString& message) {
    if (message.contains(QLatin1String("propagateSizeHints")))
        return;
    if (defaultHandler)
        defaultHandler(type, context, message);
}

// The paint rows and the keystroke section paint real widgets, which need an application object; offscreen,
// as for the window's screenshots, unless the caller chose a platform.
std::unique_ptr<QApplication> offscreenApplication() {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    defaultHandler = qInstallMessageHandler(offscreenMessages);
    static int argc = 1;
    static char name[] = "attnscope";
    static char* argv[] = {name, nullptr};
    auto app = std::make_unique<QApplication>(argc, argv);
    // Qt set the C locale from the environment; the tables print their numbers with printf.
    std::setlocale(LC_NUMERIC, "C");
    return app;
}

// The plan every section but the long one follows; the long one's is printed beside it when it differs.
void printHeader(const Machine& m, const Options& o) {
    std::printf("attnscope bench\n");
    std::printf("machine   %s (%s), %d threads, OpenBLAS %s, LibTorch %s, %s\n", m.cpu.c_str(),
                m.device.c_str(), m.threads, m.openblas.empty() ? "not in use" : m.openblas.c_str(),
                m.torch.c_str(), m.ompWait.c_str());
    const bool others = o.translation || o.tables || o.keystroke;
    const bool samePlan = o.longPlan.runs == o.plan.runs && o.longPlan.warmup == o.plan.warmup;
    const auto& plan = others ? o.plan : o.longPlan;
    if (!others || !o.longInput || samePlan)
        std::printf("runs      %d timed after %d warm-up, for every measure\n", plan.runs, plan.warmup);
    else
        std::printf("runs      %d timed after %d warm-up; the long section %d timed after %d warm-up\n",
                    o.plan.runs, o.plan.warmup, o.longPlan.runs, o.longPlan.warmup);
    std::fflush(stdout);
}

} // namespace

int runBench(const std::vector<std::string>& args) {
    return runCommand(
        "bench", kHelp,
        {{"--model", "--src", "--runs", "--warmup", "--threads", "--sizes", "--lengths", "--greedy", "--only",
          "--long-length", "--long-model", "--soak-steps", "--soak-analyses"},
         {"--json", "--quick", "--no-gui"},
         [] {
             if (isatty(STDERR_FILENO))
                 std::fprintf(stderr, "\r\033[K"); // the progress line
         }},
        args, [&](const Args& a) {
            const auto o = parse(a);
            const Progress progress(o.json);
            std::unique_ptr<QApplication> app;
            if (o.gui && (o.tables || o.keystroke || o.longInput || o.inside))
                app = offscreenApplication();

            std::optional<TranslationReport> translation;
            if (o.translation)
                translation = measureTranslation(o.modelDir, o.src, o.plan, o.threads);
            else
                core::configureThreads(o.threads);
            auto machine = thisMachine(); // after the thread count is set
            if (translation)
                machine.device = translation->device;
            if (!o.json) {
                printHeader(machine, o);
                if (translation) {
                    std::printf("\n");
                    printText(*translation);
                }
                if (o.tables)
                    std::printf("\n== Analysis and decoding by model size and length T\n%s", kTableLegend);
                std::fflush(stdout);
            }

            std::vector<SizeReport> sizes;
            if (o.tables) {
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
            }

            std::optional<KeystrokeReport> keystroke;
            if (o.keystroke) {
                if (!o.json) {
                    std::printf("\n== Keystroke to repaint\n");
                    std::fflush(stdout);
                }
                keystroke = measureKeystroke(o.modelDir, o.plan, o.threads, progress);
                progress.done();
                if (!o.json)
                    printText(*keystroke);
            }

            std::optional<LongReport> longInput;
            if (o.longInput) {
                if (!o.json) {
                    if (o.longModel.empty())
                        std::printf("\n== Long input: %d tokens through GPT-2 small's shape\n", o.longLength);
                    else
                        std::printf("\n== Long input: %d tokens through %s\n", o.longLength,
                                    o.longModel.c_str());
                    std::fflush(stdout);
                }
                longInput = measureLong(o.longLength, o.longPlan, o.threads, progress, o.longModel);
                progress.done();
                if (!o.json)
                    printText(*longInput);
            }

            std::optional<InsideReport> inside;
            if (o.inside) {
                if (!o.json) {
                    std::printf("\n== Inside: a row or head change until the Inside page has repainted\n");
                    std::fflush(stdout);
                }
                inside = measureInside(o.modelDir, o.plan, o.threads, progress);
                progress.done();
                if (!o.json)
                    printText(*inside);
            }

            std::optional<SoakReport> soak;
            if (o.soak) {
                if (!o.json) {
                    std::printf("\n== Soak: a long session in one process\n");
                    std::fflush(stdout);
                }
                soak = measureSoak({o.modelDir, builtinModelsDir() + "/tiny-lm"}, o.soakSteps, o.soakAnalyses,
                                   progress);
                progress.done();
                if (!o.json)
                    printText(*soak);
            }

            if (o.json) {
                nlohmann::ordered_json j;
                j["machine"] = toJson(machine);
                // A long section run alone follows its own plan; with others, its JSON carries it.
                const bool longOnly = !o.translation && !o.tables && !o.keystroke && !o.inside;
                j["warmup"] = longOnly ? o.longPlan.warmup : o.plan.warmup;
                j["runs"] = longOnly ? o.longPlan.runs : o.plan.runs;
                if (translation)
                    j["translation"] = toJson(*translation);
                if (o.tables) {
                    j["lengths"] = o.table.lengths;
                    j["greedy"] = o.table.greedy;
                    j["sizes"] = nlohmann::ordered_json::array();
                    for (const auto& s : sizes)
                        j["sizes"].push_back(toJson(s));
                }
                if (keystroke)
                    j["keystroke"] = toJson(*keystroke);
                if (longInput)
                    j["long"] = toJson(*longInput);
                if (inside)
                    j["inside"] = toJson(*inside);
                if (soak)
                    j["soak"] = toJson(*soak);
                std::cout << j.dump(2) << "\n";
            }
            return 0;
        });
}
