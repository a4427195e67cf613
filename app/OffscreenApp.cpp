#include "app/OffscreenApp.h"

#include <clocale>

namespace {

QtMessageHandler defaultHandler = nullptr;

// The offscreen platform warns, each time a window is shown, that it cannot pass size hints to a window
// manager it does not have; in a terminal command's output that line is noise, everything else goes through.
void offscreenMessages(QtMsgType type, const QMessageLogContext& context, const QString& message) {
    if (message.contains(QLatin1String("propagateSizeHints")))
        return;
    if (defaultHandler)
        defaultHandler(type, context, message);
}

} // namespace

std::unique_ptr<QApplication> offscreenApplication() {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    defaultHandler = qInstallMessageHandler(offscreenMessages);
    static int argc = 1;
    static char name[] = "attnscope";
    static char* argv[] = {name, nullptr};
    auto app = std::make_unique<QApplication>(argc, argv);
    // Qt set the C locale from the environment; numbers are printed with printf and parsed as C.
    std::setlocale(LC_NUMERIC, "C");
    return app;
}
