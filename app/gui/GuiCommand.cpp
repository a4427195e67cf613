#include "app/Args.h"
#include "app/BuiltinModels.h"
#include "app/Commands.h"
#include "app/gui/ScreenshotResearch.h"
#include "app/gui/StartupProbe.h"

#include "core/model/Model.h"
#include "ui/MainWindow.h"
#include "ui/attention/CandidatesChart.h"
#include "ui/attention/DecodePanel.h"
#include "ui/base/AppSettings.h"
#include "ui/base/ColorMap.h"
#include "ui/base/ViewState.h"
#include "ui/export/AttentionFigure.h"
#include "ui/export/Exporter.h"
#include "ui/positional/PositionalView.h"
#include "ui/research/AlignmentPage.h"
#include "ui/research/HeadTable.h"
#include "ui/run/AnalysisController.h"
#include "ui/run/ModelOpener.h"

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QIcon>

#include <nlohmann/json.hpp>

#include <clocale>
#include <cstdio>
#include <iostream>
#include <optional>

namespace {

const char* kGuiHelp = R"(usage: attnscope [--model DIR] [--src TEXT] [--startup-time]
       attnscope --screenshot FILE.png|svg|pdf [--model DIR] [--src TEXT] [--steps N]
                 [--tab attention|positional|train|heads|inside|side|rollout|ablation|compare]
                 [--kind encoder|decoder|cross|pooling]
                 [--layer L] [--head H|mean] [--row I] [--sample T,K,P,SEED] [--scale fixed|per-head|log]
                 [--colormap NAME] [--size WxH] [--past-max-len] [--value-weighted]
                 [--ablate LIST [--ablate-kind K]] [--pin-at N] [--flow] [--sweep]
                 [--figure heatmap|grid|candidates|curves [--dpi N] [--font-size PT] [--title TEXT]]
                 [--figure grid --heads all|LIST]
                 [--figure heads [--format pdf|svg|png]]

Opens the window on DIR (default: the model used last, else the built-in default) with TEXT in the
source field (default: the text of the last run, else an example sentence).
--screenshot renders the real main window offscreen after analysing --src and decoding --steps tokens,
saves it as FILE (.png, .svg or .pdf; the plots as vectors in SVG and PDF) and exits (0 on success, 2 on
bad arguments or input); it neither reads nor changes what the window remembers. A --src longer than the
model reads is cut at max_len, or with --past-max-len read on (sinusoidal or rotary positions only).
--figure writes one figure instead of the window, on white, in the format FILE's suffix names: the shown
head (heatmap), every head of the kind and each layer's mean (grid), the next-token chart (candidates) or
the positional tab's chosen dimensions (curves); --heads picks the grid's columns ("0,2,mean");
PNG at --dpi (default 300), SVG and PDF with cells as vector rectangles; --font-size in points (default 9),
--title above it. It prints what it wrote as one line of JSON. --figure heads treats FILE as a folder and
writes every layer × head of the kind (and each layer's mean) as its own figure, plus one CSV of them all.
--ablate switches heads off after the steps (as `attnscope dump --ablate`; the tokens decoded are kept and
run again, as a Ctrl+click on a tile does), --value-weighted colours by weight × value,
--pin-at N pins the run after N of the --steps for the Compare page, --flow shows attention flow on the
Rollout page and --sweep sweeps every head on the Ablation page (each waited for).
--startup-time opens the window as usual, prints the milliseconds from the process's start to its first
paint and to the first analysis painted, and quits (scripts/bench-startup.sh runs it repeatedly).
)";

// What the window shows on its very first start (later, the text of the last run): a sentence for the
// built-in translation model with adjective–noun pairs to reorder ("el hombre viejo", "la casa blanca").
const char* kFirstSentence = "The old man walked to the small white house.";

std::optional<ui::MainWindow::Page> tabPage(const std::string& tab) {
    return ui::pageNamed(QString::fromStdString(tab));
}

QtMessageHandler defaultHandler = nullptr;

// The offscreen platform warns that it cannot pass size hints to a window manager it does not have; in a
// screenshot run that line is noise, everything else still goes through.
void screenshotMessages(QtMsgType type, const QMessageLogContext& context, const QString& message) {
    if (message.contains(QLatin1String("propagateSizeHints")))
        return;
    if (defaultHandler)
        defaultHandler(type, context, message);
}

int fail(const std::string& message) {
    std::cerr << "attnscope: " << message << "\n";
    return 2;
}

} // namespace

int runGui(int argc, char** argv, const std::vector<std::string>& argvList) {
    std::string modelDir, src, shot, tab, kindName, size, headName, scale, colormap, figure, headsFormat,
        gridHeads;
    ui::FigureStyle figureStyle;
    bool startupTime = false, pastMaxLen = false;
    long long steps = 0, layer = 0, row = -1;
    std::optional<core::SamplingSettings> sampling;
    ResearchShot research;
    try {
        const Args a(
            argvList, {"--model",    "--src",    "--screenshot",  "--steps",     "--tab",   "--kind",
                       "--layer",    "--head",   "--row",         "--sample",    "--size",  "--scale",
                       "--colormap", "--figure", "--dpi",         "--font-size", "--title", "--format",
                       "--heads",    "--ablate", "--ablate-kind", "--pin-at"},
            {"--help", "-h", "--startup-time", "--past-max-len", "--value-weighted", "--flow", "--sweep"});
        research.ablate = a.get("--ablate");
        research.ablateKind = a.get("--ablate-kind", "decoder");
        research.valueWeighted = a.has("--value-weighted");
        research.flow = a.has("--flow");
        research.sweep = a.has("--sweep");
        research.pinAt = a.getInt("--pin-at", -1);
        if (a.has("--pin-at") && research.pinAt < 0)
            throw UsageError("--pin-at must be 0 or more");
        startupTime = a.has("--startup-time");
        pastMaxLen = a.has("--past-max-len");
        if (startupTime && a.has("--screenshot"))
            throw UsageError("--startup-time does not go with --screenshot");
        if (a.has("--help") || a.has("-h")) {
            std::cout << kGuiHelp;
            return 0;
        }
        modelDir = a.get("--model");
        src = a.get("--src");
        shot = a.get("--screenshot");
        // An empty --screenshot would open the window and wait; an empty --model would open another model.
        for (const char* opt : {"--screenshot", "--model"})
            if (a.has(opt) && a.get(opt).empty())
                throw UsageError(std::string(opt) + " is empty");
        steps = a.getInt("--steps", 0);
        tab = a.get("--tab", "attention");
        kindName = a.get("--kind");
        layer = a.getInt("--layer", 0);
        headName = a.get("--head", "0");
        row = a.getInt("--row", -1);
        if (a.has("--sample")) {
            // temperature, top-k, top-p, seed: sampling instead of greedy decoding, for --steps and the
            // Inside page's pipeline.
            double t = 0.0, p = 0.0;
            int k = 0;
            unsigned long long seed = 0;
            char end = 0;
            if (std::sscanf(a.get("--sample").c_str(), "%lf,%d,%lf,%llu%c", &t, &k, &p, &seed, &end) != 4 ||
                !(t > 0.0) || k < 0 || !(p > 0.0 && p <= 1.0))
                throw UsageError(
                    "--sample expects TEMPERATURE,TOP_K,TOP_P,SEED (T > 0, K >= 0, 0 < P <= 1), not '" +
                    a.get("--sample") + "'");
            sampling = core::SamplingSettings{false, t, k, p, seed};
        }
        size = a.get("--size", "1500x950");
        scale = a.get("--scale");
        colormap = a.get("--colormap");
        figure = a.get("--figure");
        headsFormat = a.get("--format", "pdf");
        gridHeads = a.get("--heads");
        if (a.has("--heads") && figure != "grid")
            throw UsageError("--heads goes with --figure grid");
        if (a.has("--format") && figure != "heads")
            throw UsageError("--format goes with --figure heads (a figure's format follows FILE's suffix)");
        if (headsFormat != "pdf" && headsFormat != "svg" && headsFormat != "png")
            throw UsageError("--format must be pdf, svg or png, not '" + headsFormat + "'");
        figureStyle.dpi = static_cast<int>(a.getInt("--dpi", 300));
        figureStyle.title = QString::fromStdString(a.get("--title"));
        if (a.has("--font-size")) {
            try {
                figureStyle.fontPt = std::stod(a.get("--font-size"));
            } catch (const std::exception&) {
                figureStyle.fontPt = 0;
            }
            if (!(figureStyle.fontPt >= 4 && figureStyle.fontPt <= 36))
                throw UsageError("--font-size expects points from 4 to 36, not '" + a.get("--font-size") +
                                 "'");
        }
        // The window's picture and every figure take their format from the name; a figure folder has none.
        const auto suffix = QFileInfo(QString::fromStdString(shot)).suffix().toLower();
        if (!shot.empty() && figure != "heads" && suffix != QLatin1String("png") &&
            suffix != QLatin1String("svg") && suffix != QLatin1String("pdf"))
            throw UsageError("--screenshot " + shot + ": the name must end in .png, .svg or .pdf" +
                             (suffix.isEmpty() ? std::string() : ", not ." + suffix.toStdString()));
        if (!figure.empty() && figure != "heads" &&
            !ui::AttentionFigure::names().contains(QString::fromStdString(figure)))
            throw UsageError("--figure must be heatmap, grid, candidates, curves or heads, not '" + figure +
                             "'");
        if ((a.has("--dpi") || a.has("--font-size") || a.has("--title")) && figure.empty())
            throw UsageError("--dpi, --font-size and --title go with --figure");
        if (figureStyle.dpi < 10 || figureStyle.dpi > 2400)
            throw UsageError("--dpi expects 10 to 2400");
        if (!scale.empty() && scale != "fixed" && scale != "per-head" && scale != "log")
            throw UsageError("--scale must be fixed, per-head or log, not '" + scale + "'");
        if (!colormap.empty() && !ui::ColorMap::names().contains(QString::fromStdString(colormap)))
            throw UsageError("--colormap must be one of " +
                             ui::ColorMap::names().join(QStringLiteral(", ")).toStdString() + ", not '" +
                             colormap + "'");
        if (steps < 0)
            throw UsageError("--steps must be 0 or more");
        if (!tabPage(tab))
            throw UsageError("--tab must be attention, positional, train, heads, inside, side, rollout, "
                             "ablation or compare, not '" +
                             tab + "'");
        if (a.has("--row") && row < 0)
            throw UsageError("--row must be 0 or more");
        if (!kindName.empty() && !core::attentionKindNamed(kindName))
            throw UsageError("--kind must be encoder, decoder, cross or pooling, not '" + kindName + "'");
        for (const char* opt :
             {"--steps", "--tab", "--kind", "--size", "--layer", "--head", "--row", "--sample", "--scale",
              "--colormap", "--ablate", "--ablate-kind", "--pin-at", "--value-weighted", "--flow", "--sweep"})
            if (shot.empty() && a.has(opt))
                throw UsageError(std::string(opt) + " goes with --screenshot");
    } catch (const UsageError& e) {
        return fail(e.what());
    }
    int width = 0, height = 0;
    if (std::sscanf(size.c_str(), "%dx%d", &width, &height) != 2 || width < 200 || height < 150 ||
        width > 8000 || height > 8000)
        return fail("--size expects WxH between 200x150 and 8000x8000, got '" + size + "'");
    int head = 0;
    try {
        std::size_t used = 0;
        head = headName == "mean" ? core::kMeanHead : std::stoi(headName, &used);
        // -1 is how the views spell the mean; typed, it is a mistake, as is "2x".
        if (headName != "mean" && (head < 0 || used != headName.size()))
            throw std::invalid_argument(headName);
    } catch (const std::exception&) {
        return fail("--head " + headName + ": expects a head number (0, 1, …) or 'mean'");
    }

    // A screenshot needs no display: render offscreen unless the caller chose a platform.
    if (!shot.empty() && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    if (!shot.empty())
        defaultHandler = qInstallMessageHandler(screenshotMessages);
    QApplication app(argc, argv);
    // A batch picture leaves the user's remembered model and text alone.
    if (!shot.empty() && !ui::AppSettings::keepNothing())
        return fail("cannot make a temporary folder for the run's settings (is TMPDIR writable?)");
    QApplication::setApplicationName(QStringLiteral("attnscope"));
    QApplication::setOrganizationName(QStringLiteral("attnscope"));
    QApplication::setApplicationVersion(QStringLiteral(ATTNSCOPE_VERSION));
    QApplication::setDesktopFileName(QStringLiteral("attnscope")); // the installed attnscope.desktop
    QIcon icon;
    for (int px : {16, 32, 48, 64, 128, 256})
        icon.addFile(QStringLiteral(":/icons/attnscope-%1.png").arg(px), QSize(px, px));
    QApplication::setWindowIcon(icon);

    // Qt set the C locale from the environment; numbers in files we write or parse must not follow it.
    std::setlocale(LC_NUMERIC, "C");

    const auto models = builtinModelsDir();
    if (models.empty() && modelDir.empty()) {
        if (!shot.empty())
            return fail(builtinModelsMissing());
        std::cerr << "attnscope: " << builtinModelsMissing() << "\n";
    }
    ui::MainWindow window(QString::fromStdString(models));
    if (shot.empty())
        window.restoreSettings();
    // A picture shows what the command line asks for, never what the last run happened to leave.
    ui::ModelOpener::Startup startup{QString::fromStdString(modelDir),
                                     QString::fromStdString(defaultModelDir()), shot.empty()};
    QString note;
    const bool opened = window.opener()->openAtStartup(startup, &note);
    if (!note.isEmpty())
        std::cerr << "attnscope: " << note.toStdString() << "\n";
    if (!opened && !shot.empty())
        return fail(window.lastError().toStdString());
    if (!src.empty())
        window.setSourceText(QString::fromStdString(src));
    else if (shot.empty())
        window.restoreSourceText(window.opener()->isOpen(startup.fallback) ? QString::fromUtf8(kFirstSentence)
                                                                           : QString());
    if (shot.empty()) {
        if (startupTime)
            new StartupProbe(&window); // owned by the window
        window.show();
        return app.exec();
    }

    // Screenshot: drive the real window as a user would, waiting for each request to finish.
    window.resize(width, height);
    window.show();
    auto* controller = window.controller();
    if (sampling)
        window.findChild<ui::DecodePanel*>()->setSampling(*sampling);
    if (pastMaxLen)
        controller->setPastMaxLen(true);
    if (!controller->waitUntilIdle())
        return fail("the analysis did not finish in time");
    if (const auto error = prepareResearch(window, research); !error.empty())
        return fail(error);
    for (long long i = 0; i < steps; ++i) {
        controller->step();
        if (!controller->waitUntilIdle())
            return fail("decoding did not finish in time");
        pinIfDue(window, research, i + 1);
    }
    if (!window.lastError().isEmpty())
        return fail(window.lastError().toStdString());
    if (!kindName.empty()) {
        const auto kind = *core::attentionKindNamed(kindName);
        const auto& c = window.model()->config();
        if (kind != core::AttentionKind::Decoder && !c.hasEncoder())
            return fail("--kind " + kindName + ": this model is decoder-only; it has decoder attention only");
        if (kind != core::AttentionKind::Encoder && !c.hasDecoder())
            return fail("--kind " + kindName + ": this model is encoder-only; it has encoder attention only");
        window.viewState()->setKind(kind);
    }
    {
        // Checked against the model, not clamped by the view: a picture of another head than the one asked
        // for, with exit 0, is worse than no picture.
        const auto kind = window.viewState()->kind();
        const auto& config = window.model()->config();
        const int layers = kind == core::AttentionKind::Encoder ? config.encoderLayers : config.decoderLayers;
        if (layer < 0 || layer >= layers)
            return fail("--layer " + std::to_string(layer) + ": this model's " + core::toString(kind) +
                        " attention has layers 0.." + std::to_string(layers - 1));
        if (head != core::kMeanHead && head >= config.heads)
            return fail("--head " + headName + ": this model's " + core::toString(kind) +
                        " attention has heads 0.." + std::to_string(config.heads - 1) + " (or mean)");
    }
    window.viewState()->setSelection(static_cast<int>(layer), head);
    if (!scale.empty())
        window.viewState()->setScaleMode(scale == "per-head" ? ui::ScaleMode::PerHead
                                         : scale == "log"    ? ui::ScaleMode::Log
                                                             : ui::ScaleMode::Fixed);
    if (!colormap.empty())
        window.viewState()->setColorMap(QString::fromStdString(colormap));
    if (row >= 0)
        window.viewState()->setMarkedToken(Qt::Horizontal, static_cast<int>(row));
    window.showPage(*tabPage(tab));
    QApplication::processEvents();
    if (const auto error = finishResearch(window, research); !error.empty())
        return fail(error);
    window.controller()->waitUntilIdle(); // the Inside page asks the worker for its row when it is shown
    QApplication::processEvents();
    // The side-by-side translations come from a background job too.
    if (auto* align = window.findChild<ui::AlignmentPage*>()) {
        QElapsedTimer waited;
        waited.start();
        while (align->busy() && waited.elapsed() < 120000)
            QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
    }
    // The head scores come from a background job; a picture of the page (or of a tooltip's source) waits.
    if (auto* heads = window.findChild<ui::HeadTable*>()) {
        QElapsedTimer waited;
        waited.start();
        while (heads->computing() && waited.elapsed() < 120000)
            QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
        if (heads->computing())
            return fail("scoring the heads did not finish in time");
    }
    if (figure == "heads") {
        // Every head into the folder FILE names, with a line of progress on stderr.
        const QString dir = QFileInfo(QString::fromStdString(shot)).absoluteFilePath();
        QString error;
        const int written = ui::AttentionFigure::saveAllHeads(
            window.viewState()->shown(), dir, QString::fromStdString(headsFormat), figureStyle,
            [](int done, int total) {
                std::cerr << "\rattnscope: " << done << "/" << total << std::flush;
                return true;
            },
            &error);
        std::cerr << "\n";
        if (written < 0)
            return fail(error.toStdString());
        const auto& shown = window.viewState()->shown();
        std::cout << nlohmann::json{{"figure", "heads"},
                                    {"folder", dir.toStdString()},
                                    {"format", headsFormat},
                                    {"kind", core::toString(shown.kind)},
                                    {"files", written}}
                         .dump()
                  << "\n";
        return 0;
    }
    if (!figure.empty()) {
        // One figure, not the window: the format follows the suffix (PNG at --dpi, SVG, PDF).
        const QString out = QFileInfo(QString::fromStdString(shot)).absoluteFilePath();
        auto* chart = window.findChild<ui::CandidatesChart*>();
        auto* positional = window.findChild<ui::PositionalView*>();
        const auto plot = [&](const QString& name) -> QCustomPlot* {
            if (name == QLatin1String("curves"))
                return positional && !positional->showsExplanation() ? positional->curvePlot() : nullptr;
            return chart ? chart->plot() : nullptr;
        };
        QString error;
        const auto& shown = window.viewState()->shown();
        std::vector<int> columns;
        const auto* block = shown.block();
        if (!ui::AttentionFigure::parseHeads(QString::fromStdString(gridHeads), block ? block->heads : 0,
                                             &columns, &error))
            return fail("--heads " + error.toStdString());
        if (!ui::AttentionFigure::save(QString::fromStdString(figure), shown, plot, figureStyle, out, &error,
                                       columns))
            return fail(error.toStdString());
        const auto m = ui::AttentionFigure::head(shown);
        nlohmann::json j{
            {"figure", figure},
            {"path", out.toStdString()},
            {"format", QFileInfo(out).suffix().toLower().toStdString()},
            {"kind", core::toString(shown.kind)},
            {"layer", shown.layer},
            {"head", shown.head == core::kMeanHead ? nlohmann::json("mean") : nlohmann::json(shown.head)},
            {"rows", m.rows},
            {"cols", m.cols},
            {"font_pt", figureStyle.fontPt},
            {"dpi", figureStyle.dpi},
            {"title", figureStyle.title.toStdString()}};
        std::cout << j.dump() << "\n";
        return 0;
    }
    if (window.width() != width || window.height() != height)
        std::cerr << "attnscope: the window cannot be smaller than " << window.minimumSizeHint().width()
                  << "x" << window.minimumSizeHint().height() << "; the picture is " << window.width() << "x"
                  << window.height() << "\n";
    const QString out = QFileInfo(QString::fromStdString(shot)).absoluteFilePath();
    QString error;
    // PNG as the screen shows it; SVG and PDF with the plots as vectors. Written atomically: a failed
    // write leaves no half picture.
    if (!ui::Exporter::savePicture(&window, out, 1.0, &error))
        return fail(error.toStdString());
    std::cout << "attnscope: wrote " << out.toStdString() << " (" << window.width() << "x" << window.height()
              << ", the model in " << window.opener()->directory().toStdString() << ")\n";
    return 0;
}
