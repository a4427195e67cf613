#pragma once
// What the Train tab offers: its presets (recipes of the recipes folder: the Transformer's tasks, then the
// seed's recurrent models where their recipes are there), the recipe of a run made from one, and the probe
// whose attention the tab captures while the model learns.

#include "core/train/TrainRecipe.h"

#include <QCoreApplication>
#include <QString>

class QComboBox;

namespace ui {

class TrainPresets {
    Q_DECLARE_TR_FUNCTIONS(TrainPresets)
public:
    /// Fills `task` with the presets whose recipe is in recipesDir (the data of each is its recipe's name).
    static void fill(QComboBox* task, const QString& recipesDir);
    static QString recipePath(const QString& recipesDir, const QString& preset);
    /// The preset's recipe as the tab trains it: `steps` steps, checked and checkpointed often enough for a
    /// short run, named "<name>-trained"; tiny shrinks a Transformer (a recurrent model keeps its size).
    /// Throws core::Error naming what is wrong with the recipe.
    static core::TrainRecipe forRun(const QString& path, bool tiny, int steps);
    /// Steps between two frames of the probe's attention in a run of `steps` steps: about 1/40 of the run,
    /// a multiple of the log's 10 steps once it is 10 or more, so every frame has a log row.
    static int probeEvery(int64_t steps);
    /// A size as the size box names it: "2+2 layers, d_model 64", "2 layers, d_model 64, attention-only".
    static QString sizeLabel(const core::ModelConfig& model);
    /// A source whose answer shows the task's alignment at a glance (a text to classify, for a classifier).
    static QString probeFor(core::TaskKind kind);
};

} // namespace ui
