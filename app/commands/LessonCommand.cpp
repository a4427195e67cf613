#include "app/BuiltinModels.h"
#include "app/Commands.h"
#include "app/OffscreenApp.h"
#include "app/RunCommand.h"

#include "core/model/Model.h"
#include "ui/MainWindow.h"
#include "ui/base/AppSettings.h"
#include "ui/base/ViewState.h"
#include "ui/export/Exporter.h"
#include "ui/lesson/Lesson.h"
#include "ui/lesson/LessonFile.h"
#include "ui/lesson/LessonPanel.h"
#include "ui/lesson/LessonPlayer.h"
#include "ui/run/AnalysisController.h"
#include "ui/train/TrainPage.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QTemporaryDir>

#include <nlohmann/json.hpp>

#include <clocale>
#include <iostream>

namespace {

const char* kLessonHelp =
    R"(usage: attnscope lesson --file LESSON.json [--play [--order N,N,…] [--shots DIR] [--present] [--size WxH]
                                           [--runs DIR]]

Reads a lesson and prints it as JSON, every step whole as the player restores it: {"title", "version",
"steps": [{"caption", "model", "text", "step", "forced", "tab", "kind", "layer", "head", "mark", "zoom",
"scale", "value_weighted", "inside_stage", "highlight", "train", "frame"}]}. A malformed lesson exits 2 naming the
step and the field.

  --play       plays the lesson in the window, offscreen: each step is reached as the Next key reaches it,
               and printed as one line of JSON {"index", "reached", "model", "step", "tab", "kind",
               "layer", "head", "caption" (with the live model's numbers), "missing" (placeholders the
               window could not fill), "error", and once a step has started a training run "training":
               {"preset", "folder", "step", "frame_step", "formed"}}; a step that trains waits for its run
               (the induction lesson's 600 steps take seconds); exit 1 when a step could not be reached
  --order N,N  with --play: the steps in this order (numbered from 1, any may repeat), each reached from
               the one before as Page Up, Page Down and a click in the step list reach it: "--order 5,2,9,1"
               goes back from 5 to 2; a step's line is the same whichever way it was reached
  --shots DIR  with --play: a picture of the window at each step, DIR/step-01.png … (a step played twice
               is pictured twice: DIR/step-01.png, then DIR/step-01-2.png)
  --present    with --play: in the presentation mode (full screen, large fonts)
  --size WxH   with --play: the window's size (default 1500x950)
  --runs DIR   with --play: where a lesson's training runs are kept (default: a temporary folder, removed
               when the command ends)
Exit status: 0 on success, 1 when a step could not be reached, 2 on bad arguments or a malformed lesson.
)";

// "5,2,9,1" as the 0-based steps 4, 1, 8, 0 of a lesson of `count` steps; empty: every step in order.
std::vector<int> stepOrder(const std::string& text, int count) {
    std::vector<int> order;
    if (text.empty()) {
        for (int i = 0; i < count; ++i)
            order.push_back(i);
        return order;
    }
    for (const auto& part : QString::fromStdString(text).split(QLatin1Char(','))) {
        bool ok = false;
        const int n = part.trimmed().toInt(&ok);
        if (!ok || n < 1 || n > count)
            throw UsageError("--order takes step numbers from 1 to " + std::to_string(count) + ", not \"" +
                             part.toStdString() + "\"");
        order.push_back(n - 1);
    }
    return order;
}

int play(const QString& path, const Args& a) {
    int width = 1500, height = 950;
    if (a.has("--size")) {
        const auto size = QString::fromStdString(a.get("--size")).split(QLatin1Char('x'));
        bool okW = false, okH = false;
        if (size.size() == 2) {
            width = size[0].toInt(&okW);
            height = size[1].toInt(&okH);
        }
        if (!okW || !okH || width < 200 || height < 200 || width > 8000 || height > 8000)
            throw UsageError("--size expects WxH between 200x200 and 8000x8000, not " + a.get("--size"));
    }
    const auto app = offscreenApplication();
    if (!ui::AppSettings::keepNothing()) // a batch run leaves the user's remembered settings alone
        throw std::runtime_error(
            "cannot make a temporary folder for the run's settings (is TMPDIR writable?)");
    const auto models = builtinModelsDir();
    // A batch run keeps its lessons' training runs out of the user's runs unless told where to keep them.
    QTemporaryDir scratch;
    const QString runs = a.has("--runs") ? QString::fromStdString(a.get("--runs")) : scratch.path();
    if (runs.isEmpty() || !QDir().mkpath(runs))
        throw std::runtime_error("cannot make the folder for training runs " + runs.toStdString());
    ui::MainWindow window(QString::fromStdString(models));
    window.trainPage()->setRunsFolder(runs);
    window.resize(width, height);
    window.show();
    auto* panel = window.lessonPanel();
    QString error;
    if (!panel->openFile(path, &error))
        throw std::runtime_error(error.toStdString());
    auto* player = panel->player();
    if (a.has("--present"))
        if (auto* present = window.findChild<QAction*>(QStringLiteral("presentationAction")))
            present->setChecked(true);
    QString failure;
    QObject::connect(player, &ui::LessonPlayer::failed, &window,
                     [&failure](int, const QString& message) { failure = message; });
    const QString shots = a.has("--shots") ? QString::fromStdString(a.get("--shots")) : QString();
    if (!shots.isEmpty() && !QDir().mkpath(shots))
        throw std::runtime_error("cannot make the folder " + shots.toStdString());
    const auto order = stepOrder(a.has("--order") ? a.get("--order") : std::string(), player->count());
    std::vector<int> pictured(std::size_t(player->count()), 0);
    int unreached = 0;
    for (const int i : order) {
        failure.clear();
        player->go(i);
        QElapsedTimer waited;
        waited.start();
        while (!player->arrived() && waited.elapsed() < 300000)
            QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
        const QString awaiting = player->awaiting();
        QCoreApplication::processEvents();
        const bool reached = player->arrived() && failure.isEmpty();
        unreached += reached ? 0 : 1;
        QStringList missing;
        const auto caption = player->captionPlain(&missing);
        const auto r = window.controller()->current();
        const auto* state = window.viewState();
        nlohmann::json line{{"index", i + 1},
                            {"reached", reached},
                            {"model", window.model() ? window.model()->config().name : std::string()},
                            {"step", r ? r->step : -1},
                            {"tab", ui::pageName(window.currentPage()).toStdString()},
                            {"kind", core::toString(state->kind())},
                            {"layer", state->layer()},
                            {"head", state->head() == core::kMeanHead ? nlohmann::json("mean")
                                                                      : nlohmann::json(state->head())},
                            {"caption", caption.toStdString()},
                            {"missing", nlohmann::json::array()}};
        for (const auto& m : missing)
            line["missing"].push_back(m.toStdString());
        if (const auto* t = window.trainPage(); !t->runPreset().isEmpty())
            line["training"] = {{"preset", t->runPreset().toStdString()},
                                {"folder", t->runDirectory().toStdString()},
                                {"step", t->lastStep()},
                                {"frame_step", t->frameStep(t->shownFrame())},
                                {"formed", t->formedStep()}};
        if (!reached)
            line["error"] =
                (failure.isEmpty() ? QStringLiteral("the step was not reached in %1 s, waiting for %2")
                                         .arg(waited.elapsed() / 1000)
                                         .arg(awaiting)
                                   : failure)
                    .toStdString();
        if (!shots.isEmpty()) {
            const int times = ++pictured[std::size_t(i)];
            const QString file =
                QDir(shots).filePath(QStringLiteral("step-%1%2.png")
                                         .arg(i + 1, 2, 10, QLatin1Char('0'))
                                         .arg(times > 1 ? QStringLiteral("-%1").arg(times) : QString()));
            QString why;
            if (!ui::Exporter::savePicture(&window, file, 1.0, &why))
                throw std::runtime_error(why.toStdString());
            line["picture"] = QFileInfo(file).absoluteFilePath().toStdString();
        }
        std::cout << jsonText(line) << "\n" << std::flush;
    }
    return unreached == 0 ? 0 : 1;
}

} // namespace

int runLesson(const std::vector<std::string>& argv) {
    CommandOptions options{{"--file", "--shots", "--size", "--runs", "--order"}, {"--play", "--present"}};
    return runCommand("lesson", kLessonHelp, options, argv, [&](const Args& a) {
        if (!a.has("--file"))
            throw UsageError("--file LESSON.json is required");
        if ((a.has("--shots") || a.has("--present") || a.has("--size") || a.has("--runs") ||
             a.has("--order")) &&
            !a.has("--play"))
            throw UsageError("--order, --shots, --present, --size and --runs go with --play");
        const QString path = QString::fromStdString(a.get("--file"));
        QString error;
        const auto lesson = ui::LessonFile::read(path, &error);
        if (!lesson)
            throw std::runtime_error(error.toStdString());
        if (a.has("--play"))
            return play(path, a);
        std::cout << ui::LessonFile::toJson(*lesson).toStdString();
        return 0;
    });
}
