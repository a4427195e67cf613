#include "app/Args.h"
#include "app/BuiltinModels.h"
#include "app/Commands.h"
#include "app/RunCommand.h"
#include "app/gui/GuiOptions.h"
#include "app/gui/ScreenshotFigures.h"
#include "app/gui/ScreenshotResearch.h"
#include "app/gui/StartupProbe.h"

#include "core/base/Errors.h"
#include "core/base/Memory.h"
#include "core/model/HeadAblation.h"
#include "core/model/Model.h"
#include "ui/MainWindow.h"
#include "ui/base/AppSettings.h"
#include "ui/base/ViewState.h"
#include "ui/base/WindowState.h"
#include "ui/export/Exporter.h"
#include "ui/research/AlignmentPage.h"
#include "ui/research/HeadTable.h"
#include "ui/run/AnalysisController.h"
#include "ui/run/ModelOpener.h"
#include "ui/window/WindowDriver.h"

#include <QApplication>
#include <QFileInfo>
#include <QIcon>

#include <clocale>
#include <iostream>
#include <stdexcept>

namespace {

const char* kGuiHelp = R"(usage: attnscope [--model DIR] [--src TEXT] [--startup-time]
       attnscope --screenshot FILE.png|svg|pdf [--model DIR] [--src TEXT] [--steps N]
                 [--tab attention|positional|train|heads|inside|side|rollout|ablation|compare|lens]
                 [--kind encoder|decoder|cross|pooling]
                 [--layer L] [--head H|mean] [--row I] [--sample T,K,P,SEED] [--scale fixed|per-head|log]
                 [--colormap NAME] [--size WxH] [--past-max-len] [--value-weighted]
                 [--ablate LIST [--ablate-kind K]] [--pin-at N] [--flow] [--sweep]
                 [--lens-colour probability|rank|entropy] [--lens-token TEXT]
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
Rollout page and --sweep sweeps every head on the Ablation page (each waited for); --lens-colour and
--lens-token choose what the Logit lens page colours by and the token it follows (#id or its text).
--startup-time opens the window as usual, prints the milliseconds from the process's start to its first
paint and to the first analysis painted, and quits (scripts/bench-startup.sh runs it repeatedly).
)";

// What the window shows on its very first start (later, the text of the last run): a sentence for the
// built-in translation model with adjective–noun pairs to reorder ("el hombre viejo", "la casa blanca").
const char* kFirstSentence = "The old man walked to the small white house.";

QtMessageHandler defaultHandler = nullptr;

// The offscreen platform warns that it cannot pass size hints to a window manager it does not have; in a
// screenshot run that line is noise, everything else still goes through.
void screenshotMessages(QtMsgType type, const QMessageLogContext& context, const QString& message) {
    if (message.contains(QLatin1String("propagateSizeHints")))
        return;
    if (defaultHandler)
        defaultHandler(type, context, message);
}

// A failure of the run itself (not of its options): the frame prints it and exits 2.
[[noreturn]] void fail(const std::string& message) {
    throw std::runtime_error(message);
}

void nameApplication() {
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
}

// The state a screenshot asks for, checked against the model the window opened: a picture of another head
// than the one asked for, with exit 0, is worse than no picture.
ui::WindowState screenshotState(const GuiOptions& o, const ui::MainWindow& window) {
    const auto& config = window.model()->config();
    ui::WindowState s;
    s.text = window.sourceText();
    s.step = static_cast<int>(o.steps);
    if (o.sampling)
        s.sampling = *o.sampling;
    if (o.pastMaxLen)
        s.pastMaxLen = true;
    s.kind = std::nullopt; // the kind the window chose for the model, unless --kind says
    if (!o.kindName.empty()) {
        const auto kind = *core::attentionKindNamed(o.kindName);
        if (kind != core::AttentionKind::Decoder && !config.hasEncoder())
            fail("--kind " + o.kindName + ": this model is decoder-only; it has decoder attention only");
        if (kind != core::AttentionKind::Encoder && !config.hasDecoder())
            fail("--kind " + o.kindName + ": this model is encoder-only; it has encoder attention only");
        s.kind = kind;
    }
    const auto kind = s.kind.value_or(window.viewState()->kind());
    const int layers = kind == core::AttentionKind::Encoder ? config.encoderLayers : config.decoderLayers;
    if (o.layer < 0 || o.layer >= layers)
        fail("--layer " + std::to_string(o.layer) + ": this model's " + core::toString(kind) +
             " attention has layers 0.." + std::to_string(layers - 1));
    if (o.head != core::kMeanHead && o.head >= config.heads)
        fail("--head " + o.headName + ": this model's " + core::toString(kind) + " attention has heads 0.." +
             std::to_string(config.heads - 1) + " (or mean)");
    s.layer = static_cast<int>(o.layer);
    s.head = o.head;
    s.markRow = static_cast<int>(o.row);
    s.scale = o.scale.empty()         ? window.viewState()->scaleMode()
              : o.scale == "per-head" ? ui::ScaleMode::PerHead
              : o.scale == "log"      ? ui::ScaleMode::Log
                                      : ui::ScaleMode::Fixed;
    s.colorMap = QString::fromStdString(o.colormap);
    s.tab = QString::fromStdString(o.tab);
    const auto& research = o.research;
    s.valueWeighted = research.valueWeighted;
    s.pinAt = static_cast<int>(research.pinAt);
    if (!research.ablate.empty()) {
        const auto ablateKind = core::attentionKindNamed(research.ablateKind);
        if (!ablateKind || *ablateKind == core::AttentionKind::Pooling)
            fail("--ablate-kind \"" + research.ablateKind + "\" is not one of encoder, decoder, cross");
        try {
            core::addAblation(s.headsOff, research.ablate, *ablateKind, config);
        } catch (const core::InputError& e) {
            fail(std::string("--ablate: ") + e.what());
        }
    }
    return s;
}

// Drives the real window offscreen to the options' state, as a user would get there, and writes the picture
// or the figures asked for.
int takeScreenshot(const GuiOptions& o, ui::MainWindow& window) {
    // Under an address-space limit (ulimit -v) a large picture ran out of memory inside the plots' own
    // painting, where Qt and QCustomPlot carry on with null buffers and crash: asked first instead. The
    // window's buffers, the picture and the plots' paint buffers hold about three copies of its pixels.
    const int64_t picture = int64_t{o.width} * o.height * 4, need = 3 * picture + (int64_t{256} << 20);
    if (const int64_t left = core::addressSpaceLeft(); left >= 0 && left < need)
        fail("a " + std::to_string(o.width) + "x" + std::to_string(o.height) + " picture needs about " +
             core::byteText(need) + " more memory, and this process's limit (ulimit -v) leaves " +
             core::byteText(left) + "; ask for a smaller --size or raise the limit");
    window.resize(o.width, o.height);
    window.show();
    if (!window.controller()->waitUntilIdle())
        fail("the analysis did not finish in time");
    if (!window.lastError().isEmpty())
        fail(window.lastError().toStdString());
    QString error;
    ui::WindowDriver::Options options;
    options.stepsAtMost = true; // a model that finishes its output first is pictured where it stopped
    if (!window.driver()->driveAndWait(screenshotState(o, window), options, &error))
        fail(error.toStdString());
    if (const auto research = finishResearch(window, o.research); !research.empty())
        fail(research);
    // The side-by-side translations and the head scores come from background jobs of their own.
    if (auto* align = window.findChild<ui::AlignmentPage*>())
        waitWhile([align] { return align->busy(); });
    if (auto* heads = window.findChild<ui::HeadTable*>();
        heads && !waitWhile([heads] { return heads->computing(); }))
        fail("scoring the heads did not finish in time");
    QCoreApplication::processEvents();
    if (!o.figure.empty())
        return writeFigures(o, window);
    if (window.width() != o.width || window.height() != o.height)
        std::cerr << "attnscope: the window cannot be smaller than " << window.minimumSizeHint().width()
                  << "x" << window.minimumSizeHint().height() << "; the picture is " << window.width() << "x"
                  << window.height() << "\n";
    const QString out = QFileInfo(QString::fromStdString(o.shot)).absoluteFilePath();
    // PNG as the screen shows it; SVG and PDF with the plots as vectors. Written atomically: a failed write
    // leaves no half picture.
    if (!ui::Exporter::savePicture(&window, out, 1.0, &error))
        fail(error.toStdString());
    std::cout << "attnscope: wrote " << out.toStdString() << " (" << window.width() << "x" << window.height()
              << ", the model in " << window.opener()->directory().toStdString() << ")\n";
    return 0;
}

int runWindow(int argc, char** argv, const GuiOptions& o) {
    const bool shot = !o.shot.empty();
    // A screenshot needs no display: render offscreen unless the caller chose a platform.
    if (shot && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    if (shot)
        defaultHandler = qInstallMessageHandler(screenshotMessages);
    QApplication app(argc, argv);
    // A batch picture leaves the user's remembered model and text alone.
    if (shot && !ui::AppSettings::keepNothing())
        fail("cannot make a temporary folder for the run's settings (is TMPDIR writable?)");
    nameApplication();
    const auto models = builtinModelsDir();
    if (models.empty() && o.modelDir.empty()) {
        if (shot)
            fail(builtinModelsMissing());
        std::cerr << "attnscope: " << builtinModelsMissing() << "\n";
    }
    ui::MainWindow window(QString::fromStdString(models));
    if (!shot)
        window.restoreLayout();
    // A picture shows what the command line asks for, never what the last run happened to leave.
    ui::ModelOpener::Startup startup{QString::fromStdString(o.modelDir),
                                     QString::fromStdString(defaultModelDir()), !shot};
    QString note;
    const bool opened = window.opener()->openAtStartup(startup, &note);
    if (!note.isEmpty())
        std::cerr << "attnscope: " << note.toStdString() << "\n";
    if (!opened && shot)
        fail(window.lastError().toStdString());
    if (shot) {
        if (!o.src.empty())
            window.setSourceText(QString::fromStdString(o.src));
        return takeScreenshot(o, window);
    }
    // What the window showed when it last closed, with --src's text when one is given.
    window.restoreRemembered(window.opener()->isOpen(startup.fallback) ? QString::fromUtf8(kFirstSentence)
                                                                       : QString(),
                             QString::fromStdString(o.src));
    if (o.startupTime)
        new StartupProbe(&window); // owned by the window
    window.show();
    return app.exec();
}

} // namespace

int runGui(int argc, char** argv, const std::vector<std::string>& argvList) {
    return runCommand({}, kGuiHelp, {guiValuedOptions(), guiFlags()}, argvList,
                      [&](const Args& a) { return runWindow(argc, argv, parseGuiOptions(a)); });
}
