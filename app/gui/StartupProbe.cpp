#include "app/gui/StartupProbe.h"

#include "ui/MainWindow.h"
#include "ui/run/AnalysisController.h"

#include <QApplication>
#include <QEvent>
#include <QTimer>

#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>

StartupProbe::StartupProbe(ui::MainWindow* window) : QObject(window), window_(window) {
    // Paint events of any widget in the window: the top level alone may be covered by its children.
    qApp->installEventFilter(this);
    // A start that never shows an analysis (a model that fails on its text, a hung worker) must end with a
    // message rather than wait forever.
    QTimer::singleShot(kGiveUpMs, this, [] {
        std::fprintf(stderr, "attnscope: no analysis was shown within %d s of the start\n", kGiveUpMs / 1000);
        QApplication::exit(2);
    });
}

double StartupProbe::msSinceProcessStart() {
    // Field 22 of /proc/self/stat is the process's start in clock ticks after boot, on the clock that
    // CLOCK_BOOTTIME reads; the launcher and the program are one process, so this counts the loading of
    // every library too.
    std::ifstream in("/proc/self/stat");
    std::string stat;
    std::getline(in, stat);
    const auto close = stat.rfind(')'); // the command name may hold spaces
    if (close == std::string::npos)
        return -1.0;
    std::istringstream fields(stat.substr(close + 2));
    std::string field;
    for (int i = 3; i <= 22 && fields >> field; ++i) {
    }
    const double startTicks = std::stod(field);
    timespec now{};
    clock_gettime(CLOCK_BOOTTIME, &now);
    const double nowMs = double(now.tv_sec) * 1e3 + double(now.tv_nsec) / 1e6;
    return nowMs - startTicks * 1e3 / double(sysconf(_SC_CLK_TCK));
}

bool StartupProbe::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() != QEvent::Paint || !watched->isWidgetType())
        return false;
    auto* w = static_cast<QWidget*>(watched);
    if (w->window() != window_)
        return false;
    if (firstPaintMs_ < 0.0) {
        firstPaintMs_ = msSinceProcessStart();
        std::printf("first paint        %.0f ms\n", firstPaintMs_);
        std::fflush(stdout);
    }
    auto* controller = window_->controller();
    if (window_->sourceText().isEmpty() && !controller->busy()) {
        // Nothing to analyse (no text of a last run, and the model has no example): nothing more to time.
        qApp->removeEventFilter(this);
        QTimer::singleShot(0, qApp, [] {
            std::printf(
                "analysis shown     none: the Source field is empty, so there is nothing to analyse\n");
            std::fflush(stdout);
            QApplication::quit();
        });
        return false;
    }
    if (!controller->busy() && !controller->current() && !window_->lastError().isEmpty()) {
        // The text could not be analysed (too long for the model, say): the start ends with the reason.
        qApp->removeEventFilter(this);
        const auto error = window_->lastError().toStdString();
        QTimer::singleShot(0, qApp, [error] {
            std::fprintf(stderr, "attnscope: the start's text was not analysed: %s\n", error.c_str());
            QApplication::exit(2);
        });
        return false;
    }
    if (!controller->busy() && controller->current()) {
        // This paint may be the one that shows the result; give it and any queued repaint a turn first.
        qApp->removeEventFilter(this);
        QTimer::singleShot(0, qApp, [] {
            std::printf("analysis shown     %.0f ms\n", msSinceProcessStart());
            std::fflush(stdout);
            QApplication::quit();
        });
    }
    return false;
}
