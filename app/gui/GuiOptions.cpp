#include "app/gui/GuiOptions.h"

#include "core/model/AttentionBlock.h"
#include "ui/base/ColorMap.h"
#include "ui/base/Pages.h"
#include "ui/export/AttentionFigure.h"

#include <QFileInfo>

#include <cstdio>

namespace {

// temperature, top-k, top-p, seed: sampling instead of greedy decoding, for --steps and the Inside page's
// pipeline.
core::SamplingSettings parseSampling(const std::string& text) {
    double t = 0.0, p = 0.0;
    int k = 0;
    unsigned long long seed = 0;
    char end = 0;
    if (std::sscanf(text.c_str(), "%lf,%d,%lf,%llu%c", &t, &k, &p, &seed, &end) != 4 || !(t > 0.0) || k < 0 ||
        !(p > 0.0 && p <= 1.0))
        throw UsageError("--sample expects TEMPERATURE,TOP_K,TOP_P,SEED (T > 0, K >= 0, 0 < P <= 1), not '" +
                         text + "'");
    return core::SamplingSettings{false, t, k, p, seed};
}

int parseHead(const std::string& name) {
    try {
        std::size_t used = 0;
        const int head = name == "mean" ? core::kMeanHead : std::stoi(name, &used);
        // -1 is how the views spell the mean; typed, it is a mistake, as is "2x".
        if (name != "mean" && (head < 0 || used != name.size()))
            throw std::invalid_argument(name);
        return head;
    } catch (const std::exception&) {
        throw UsageError("--head " + name + ": expects a head number (0, 1, …) or 'mean'");
    }
}

void parseFigure(const Args& a, GuiOptions& o) {
    o.figure = a.get("--figure");
    o.headsFormat = a.get("--format", "pdf");
    o.gridHeads = a.get("--heads");
    if (a.has("--heads") && o.figure != "grid")
        throw UsageError("--heads goes with --figure grid");
    if (a.has("--format") && o.figure != "heads")
        throw UsageError("--format goes with --figure heads (a figure's format follows FILE's suffix)");
    if (o.headsFormat != "pdf" && o.headsFormat != "svg" && o.headsFormat != "png")
        throw UsageError("--format must be pdf, svg or png, not '" + o.headsFormat + "'");
    o.figureStyle.dpi = static_cast<int>(a.getInt("--dpi", 300));
    o.figureStyle.title = QString::fromStdString(a.get("--title"));
    if (a.has("--font-size")) {
        try {
            o.figureStyle.fontPt = std::stod(a.get("--font-size"));
        } catch (const std::exception&) {
            o.figureStyle.fontPt = 0;
        }
        if (!(o.figureStyle.fontPt >= 4 && o.figureStyle.fontPt <= 36))
            throw UsageError("--font-size expects points from 4 to 36, not '" + a.get("--font-size") + "'");
    }
    // The window's picture and every figure take their format from the name; a figure folder has none.
    const auto suffix = QFileInfo(QString::fromStdString(o.shot)).suffix().toLower();
    if (!o.shot.empty() && o.figure != "heads" && suffix != QLatin1String("png") &&
        suffix != QLatin1String("svg") && suffix != QLatin1String("pdf"))
        throw UsageError("--screenshot " + o.shot + ": the name must end in .png, .svg or .pdf" +
                         (suffix.isEmpty() ? std::string() : ", not ." + suffix.toStdString()));
    if (!o.figure.empty() && o.figure != "heads" &&
        !ui::AttentionFigure::names().contains(QString::fromStdString(o.figure)))
        throw UsageError("--figure must be heatmap, grid, candidates, curves or heads, not '" + o.figure +
                         "'");
    if ((a.has("--dpi") || a.has("--font-size") || a.has("--title")) && o.figure.empty())
        throw UsageError("--dpi, --font-size and --title go with --figure");
    if (o.figureStyle.dpi < 10 || o.figureStyle.dpi > 2400)
        throw UsageError("--dpi expects 10 to 2400");
}

void parseView(const Args& a, GuiOptions& o) {
    o.steps = a.getInt("--steps", 0);
    o.tab = a.get("--tab", "attention");
    o.kindName = a.get("--kind");
    o.layer = a.getInt("--layer", 0);
    o.headName = a.get("--head", "0");
    o.row = a.getInt("--row", -1);
    if (a.has("--sample"))
        o.sampling = parseSampling(a.get("--sample"));
    o.scale = a.get("--scale");
    o.colormap = a.get("--colormap");
    if (!o.scale.empty() && o.scale != "fixed" && o.scale != "per-head" && o.scale != "log")
        throw UsageError("--scale must be fixed, per-head or log, not '" + o.scale + "'");
    if (!o.colormap.empty() && !ui::ColorMap::names().contains(QString::fromStdString(o.colormap)))
        throw UsageError("--colormap must be one of " +
                         ui::ColorMap::names().join(QStringLiteral(", ")).toStdString() + ", not '" +
                         o.colormap + "'");
    if (o.steps < 0)
        throw UsageError("--steps must be 0 or more");
    if (!ui::pageNamed(QString::fromStdString(o.tab)))
        throw UsageError("--tab must be attention, positional, train, heads, inside, side, rollout, ablation "
                         "or compare, not '" +
                         o.tab + "'");
    if (a.has("--row") && o.row < 0)
        throw UsageError("--row must be 0 or more");
    if (!o.kindName.empty() && !core::attentionKindNamed(o.kindName))
        throw UsageError("--kind must be encoder, decoder, cross or pooling, not '" + o.kindName + "'");
}

} // namespace

const std::set<std::string>& guiValuedOptions() {
    static const std::set<std::string> valued{
        "--model",    "--src",    "--screenshot",  "--steps",     "--tab",         "--kind",
        "--layer",    "--head",   "--row",         "--sample",    "--size",        "--scale",
        "--colormap", "--figure", "--dpi",         "--font-size", "--title",       "--format",
        "--heads",    "--ablate", "--ablate-kind", "--pin-at",    "--lens-colour", "--lens-token"};
    return valued;
}

const std::set<std::string>& guiFlags() {
    static const std::set<std::string> flags{"--startup-time", "--past-max-len", "--value-weighted", "--flow",
                                             "--sweep"};
    return flags;
}

GuiOptions parseGuiOptions(const Args& a) {
    GuiOptions o;
    auto& research = o.research;
    research.ablate = a.get("--ablate");
    research.ablateKind = a.get("--ablate-kind", "decoder");
    research.valueWeighted = a.has("--value-weighted");
    research.flow = a.has("--flow");
    research.sweep = a.has("--sweep");
    research.pinAt = a.getInt("--pin-at", -1);
    research.lensColour = a.get("--lens-colour");
    research.lensToken = a.get("--lens-token");
    if (a.has("--lens-colour") && research.lensColour != "probability" && research.lensColour != "rank" &&
        research.lensColour != "entropy")
        throw UsageError("--lens-colour takes probability, rank or entropy, not '" + research.lensColour +
                         "'");
    if (a.has("--pin-at") && research.pinAt < 0)
        throw UsageError("--pin-at must be 0 or more");
    o.startupTime = a.has("--startup-time");
    o.pastMaxLen = a.has("--past-max-len");
    if (o.startupTime && a.has("--screenshot"))
        throw UsageError("--startup-time does not go with --screenshot");
    o.modelDir = a.get("--model");
    o.src = a.get("--src");
    o.shot = a.get("--screenshot");
    // An empty --screenshot would open the window and wait; an empty --model would open another model.
    for (const char* opt : {"--screenshot", "--model"})
        if (a.has(opt) && a.get(opt).empty())
            throw UsageError(std::string(opt) + " is empty");
    parseView(a, o);
    parseFigure(a, o);
    for (const char* opt : {"--steps", "--tab", "--kind", "--size", "--layer", "--head", "--row", "--sample",
                            "--scale", "--colormap", "--ablate", "--ablate-kind", "--pin-at",
                            "--value-weighted", "--flow", "--sweep", "--lens-colour", "--lens-token"})
        if (o.shot.empty() && a.has(opt))
            throw UsageError(std::string(opt) + " goes with --screenshot");
    const auto size = a.get("--size", "1500x950");
    if (std::sscanf(size.c_str(), "%dx%d", &o.width, &o.height) != 2 || o.width < 200 || o.height < 150 ||
        o.width > 8000 || o.height > 8000)
        throw UsageError("--size expects WxH between 200x150 and 8000x8000, got '" + size + "'");
    o.head = parseHead(o.headName);
    return o;
}
