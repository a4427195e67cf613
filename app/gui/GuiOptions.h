#pragma once
// The window's command line (attnscope [--model DIR] [--src TEXT] ..., --screenshot FILE ...), parsed and
// checked as far as it can be without a model: every option's value, and which go together.

#include "app/Args.h"
#include "app/gui/ScreenshotResearch.h"

#include "core/run/Sampler.h"
#include "ui/export/FigureWriter.h"

#include <optional>
#include <set>
#include <string>

struct GuiOptions {
    std::string modelDir; ///< --model (empty: the model used last, else the built-in default)
    std::string src;      ///< --src
    std::string shot;     ///< --screenshot FILE (empty: open the window)
    bool startupTime = false;
    bool pastMaxLen = false;
    long long steps = 0;
    std::string tab = "attention";
    std::string kindName; ///< empty: the kind the window chooses for the model
    long long layer = 0;
    std::string headName = "0";
    int head = 0; ///< --head as a number, core::kMeanHead for "mean"
    long long row = -1;
    std::optional<core::SamplingSettings> sampling;
    std::string scale, colormap;
    int width = 1500, height = 950;
    std::string figure, headsFormat = "pdf", gridHeads;
    ui::FigureStyle figureStyle;
    ResearchShot research;
};

/// The options the window takes, valued and flags (--help and -h are the frame's).
const std::set<std::string>& guiValuedOptions();
const std::set<std::string>& guiFlags();

/// Reads the options; throws UsageError naming the option and what is wrong with it.
GuiOptions parseGuiOptions(const Args& a);
