#pragma once
// Where the window's training runs live and which of them there are: the folder new runs go to, the one
// earlier versions wrote to (…/attnscope/attnscope/runs, the application's name twice), the models the
// runs trained (for the Model list), and a run that stopped before its end (for the Train tab to offer).

#include <QString>
#include <QStringList>

#include <optional>

namespace ui {

class RunFolders {
public:
    /// The user's data folder's attnscope/runs (~/.local/share/attnscope/runs on Linux).
    static QString defaultFolder();
    /// The folders runs were written to: defaultFolder(), and the earlier versions' folder when it exists.
    static QStringList folders();
    /// Each run's model/ folder that holds a config.json (a run completed or stopped), newest run first, at
    /// most `newest` of them: a list one picks from stays short (Open Folder… reaches the older ones).
    static QStringList trainedModels(const QStringList& folders = RunFolders::folders(), int newest = 8);
    /// How the Model list names a trained model: "trained: " and its run's folder name.
    static QString modelName(const QString& modelDir);

    struct Stopped {
        QString dir;
        qint64 step = 0;  ///< the step of its last checkpoint
        qint64 steps = 0; ///< the steps it was to train
    };
    /// The run in dir when its last checkpoint is short of its steps (closed, killed or stopped mid-run);
    /// nothing for a folder without a run, a finished run, or a checkpoint that cannot be read.
    static std::optional<Stopped> stoppedRun(const QString& dir);
};

} // namespace ui
