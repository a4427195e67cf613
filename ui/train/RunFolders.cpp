#include "ui/train/RunFolders.h"

#include "core/base/Errors.h"
#include "core/train/CheckpointState.h"
#include "core/train/TrainingRun.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

#include <algorithm>

namespace ui {

QString RunFolders::defaultFolder() {
    // The generic data folder with the program's name once: AppDataLocation adds the organisation's name
    // as well, which is also "attnscope".
    return QDir(QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation))
        .filePath(QStringLiteral("attnscope/runs"));
}

QStringList RunFolders::folders() {
    QStringList out{defaultFolder()};
    const QString earlier = QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation))
                                .filePath(QStringLiteral("runs"));
    if (QDir::cleanPath(earlier) != QDir::cleanPath(out.front()) && QFileInfo(earlier).isDir())
        out << earlier;
    return out;
}

QStringList RunFolders::trainedModels(const QStringList& folders, int newest) {
    QFileInfoList runs;
    for (const auto& folder : folders)
        runs += QDir(folder).entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot);
    std::sort(runs.begin(), runs.end(),
              [](const QFileInfo& a, const QFileInfo& b) { return a.lastModified() > b.lastModified(); });
    QStringList out;
    for (const auto& run : runs) {
        if (out.size() >= newest)
            break;
        const QString model = QDir(run.filePath()).filePath(QStringLiteral("model"));
        if (QFileInfo::exists(model + QStringLiteral("/config.json")))
            out << model;
    }
    return out;
}

QString RunFolders::modelName(const QString& modelDir) {
    return QCoreApplication::translate("ui::RunFolders", "trained: %1")
        .arg(QFileInfo(QFileInfo(modelDir).absolutePath()).fileName());
}

std::optional<RunFolders::Stopped> RunFolders::stoppedRun(const QString& dir) {
    if (dir.isEmpty() || !core::TrainingRun::hasCheckpoint(dir.toStdString()))
        return std::nullopt;
    try {
        const auto state = core::CheckpointState::read(dir.toStdString());
        Stopped s;
        s.dir = dir;
        s.step = state.step;
        s.steps = state.recipe.steps;
        if (s.step >= s.steps)
            return std::nullopt;
        return s;
    } catch (const core::Error&) {
        return std::nullopt; // a folder Continue Run… would refuse, saying why: nothing to offer here
    }
}

} // namespace ui
