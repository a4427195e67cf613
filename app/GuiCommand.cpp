#include "Args.h"
#include "Commands.h"

#include "ui/MainWindow.h"

#include <QApplication>
#include <QGuiApplication>

#include <iostream>

int runGui(int argc, char** argv, const std::vector<std::string>& argvList) {
    std::string modelDir;
    try {
        const Args a(argvList, {"--model"}, {});
        modelDir = a.get("--model", ATTNSCOPE_DEFAULT_MODEL_DIR);
    } catch (const UsageError& e) {
        std::cerr << "attnscope: " << e.what() << "\n";
        return 2;
    }
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("attnscope"));
    QApplication::setOrganizationName(QStringLiteral("attnscope"));
    QApplication::setApplicationVersion(QStringLiteral(ATTNSCOPE_VERSION));
    ui::MainWindow window;
    window.openModel(QString::fromStdString(modelDir));
    window.show();
    return app.exec();
}
