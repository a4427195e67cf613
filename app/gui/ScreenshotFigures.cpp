#include "app/gui/ScreenshotFigures.h"

#include "core/model/AttentionBlock.h"
#include "ui/MainWindow.h"
#include "ui/attention/CandidatesChart.h"
#include "ui/base/QCustomPlotInclude.h"
#include "ui/base/ViewState.h"
#include "ui/export/AttentionFigure.h"
#include "ui/positional/PositionalView.h"

#include <QFileInfo>

#include <nlohmann/json.hpp>

#include <iostream>
#include <stdexcept>

namespace {

[[noreturn]] void fail(const std::string& message) {
    throw std::runtime_error(message);
}

// Every head into the folder FILE names, with a line of progress on stderr.
int writeAllHeads(const GuiOptions& o, ui::MainWindow& window) {
    const QString dir = QFileInfo(QString::fromStdString(o.shot)).absoluteFilePath();
    QString error;
    const int written = ui::AttentionFigure::saveAllHeads(
        window.viewState()->shown(), dir, QString::fromStdString(o.headsFormat), o.figureStyle,
        [](int done, int total) {
            std::cerr << "\rattnscope: " << done << "/" << total << std::flush;
            return true;
        },
        &error);
    std::cerr << "\n";
    if (written < 0)
        fail(error.toStdString());
    const auto& shown = window.viewState()->shown();
    std::cout << nlohmann::json{{"figure", "heads"},
                                {"folder", dir.toStdString()},
                                {"format", o.headsFormat},
                                {"kind", core::toString(shown.kind)},
                                {"files", written}}
                     .dump()
              << "\n";
    return 0;
}

// One figure, not the window: the format follows the suffix (PNG at --dpi, SVG, PDF).
int writeOneFigure(const GuiOptions& o, ui::MainWindow& window) {
    const QString out = QFileInfo(QString::fromStdString(o.shot)).absoluteFilePath();
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
    if (!ui::AttentionFigure::parseHeads(QString::fromStdString(o.gridHeads), block ? block->heads : 0,
                                         &columns, &error))
        fail("--heads " + error.toStdString());
    if (!ui::AttentionFigure::save(QString::fromStdString(o.figure), shown, plot, o.figureStyle, out, &error,
                                   columns))
        fail(error.toStdString());
    const auto m = ui::AttentionFigure::head(shown);
    nlohmann::json j{
        {"figure", o.figure},
        {"path", out.toStdString()},
        {"format", QFileInfo(out).suffix().toLower().toStdString()},
        {"kind", core::toString(shown.kind)},
        {"layer", shown.layer},
        {"head", shown.head == core::kMeanHead ? nlohmann::json("mean") : nlohmann::json(shown.head)},
        {"rows", m.rows},
        {"cols", m.cols},
        {"font_pt", o.figureStyle.fontPt},
        {"dpi", o.figureStyle.dpi},
        {"title", o.figureStyle.title.toStdString()}};
    std::cout << j.dump() << "\n";
    return 0;
}

} // namespace

int writeFigures(const GuiOptions& o, ui::MainWindow& window) {
    return o.figure == "heads" ? writeAllHeads(o, window) : writeOneFigure(o, window);
}
