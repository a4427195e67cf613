#include "ui/TrainPresets.h"

#include <QComboBox>
#include <QDir>
#include <QFileInfo>

#include <algorithm>

namespace ui {

void TrainPresets::fill(QComboBox* task, const QString& recipesDir) {
    for (const char* t : {"reverse", "copy", "sort", "addition"})
        task->addItem(QString::fromLatin1(t), QString::fromLatin1(t));
    const std::pair<const char*, QString> recurrent[] = {{"reverse-gru", tr("reverse (GRU + attention)")},
                                                         {"spam", tr("spam (BiLSTM attention pooling)")}};
    for (const auto& [file, label] : recurrent)
        if (QFileInfo::exists(recipePath(recipesDir, QString::fromLatin1(file))))
            task->addItem(label, QString::fromLatin1(file));
    task->setToolTip(tr("What to learn: copy, reverse or sort a string, or add two numbers written "
                        "least-significant digit first, with a Transformer; reverse with the seed's GRU "
                        "translator; or tell spam from ham with its attention-pooling classifier"));
}

QString TrainPresets::recipePath(const QString& recipesDir, const QString& preset) {
    return QDir(recipesDir).filePath(preset + QStringLiteral(".json"));
}

core::TrainRecipe TrainPresets::forRun(const QString& path, bool tiny, int steps) {
    auto recipe = core::TrainRecipe::fromFile(path.toStdString());
    if (tiny && !recipe.model.recurrent()) {
        recipe.model.encoderLayers = recipe.model.decoderLayers = 1;
        recipe.model.dModel = 32;
        recipe.model.heads = 2;
        recipe.model.dFf = 64;
    }
    recipe.steps = steps;
    recipe.evalEvery = std::max<int64_t>(50, recipe.steps / 10);
    recipe.evalExamples = 200; // quick enough to check often; the CLI's 1,000 are for the record
    recipe.name = recipe.name + "-trained";
    // Checkpoints often enough that a crash loses little of a classroom run (4,000 steps: every 200).
    recipe.checkpointEvery = std::min(recipe.checkpointEvery, std::max<int64_t>(20, recipe.steps / 20));
    return recipe;
}

QString TrainPresets::probeFor(core::TaskKind kind) {
    switch (kind) {
    case core::TaskKind::Copy:
    case core::TaskKind::Reverse:
        return QStringLiteral("abcdefghij");
    case core::TaskKind::Sort:
        return QStringLiteral("5318026497");
    case core::TaskKind::Addition:
        return QStringLiteral("4721+385");
    case core::TaskKind::Induction:
        return QStringLiteral("qWeRtYuI");
    // Both are trained from the command line (an hour or more, not minutes); not offered here.
    case core::TaskKind::Translation:
        return QStringLiteral("the red car");
    case core::TaskKind::LanguageModel:
        return QStringLiteral("And God said");
    case core::TaskKind::Classification:
        return QStringLiteral("Win a free prize now");
    }
    return {};
}

} // namespace ui
