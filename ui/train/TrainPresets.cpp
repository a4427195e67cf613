#include "ui/train/TrainPresets.h"

#include <QComboBox>
#include <QDir>
#include <QFileInfo>

#include <algorithm>

namespace ui {

void TrainPresets::fill(QComboBox* task, const QString& recipesDir) {
    for (const char* t : {"reverse", "copy", "sort", "addition"})
        task->addItem(QString::fromLatin1(t), QString::fromLatin1(t));
    const std::pair<const char*, QString> more[] = {{"induction", tr("induction (attention-only)")},
                                                    {"reverse-gru", tr("reverse (GRU + attention)")},
                                                    {"spam", tr("spam (BiLSTM attention pooling)")}};
    for (const auto& [file, label] : more)
        if (QFileInfo::exists(recipePath(recipesDir, QString::fromLatin1(file))))
            task->addItem(label, QString::fromLatin1(file));
    task->setToolTip(tr("What to learn: copy, reverse or sort a string, or add two numbers written "
                        "least-significant digit first, with a Transformer; continue a segment of letters "
                        "given a second time, where an attention-only model forms an induction head; "
                        "reverse with the seed's GRU translator; or tell spam from ham with its "
                        "attention-pooling classifier"));
}

QString TrainPresets::recipePath(const QString& recipesDir, const QString& preset) {
    return QDir(recipesDir).filePath(preset + QStringLiteral(".json"));
}

core::TrainRecipe TrainPresets::forRun(const QString& path, bool tiny, int steps) {
    auto recipe = core::TrainRecipe::fromFile(path.toStdString());
    if (tiny && !recipe.model.recurrent()) {
        // An induction head is two heads composed across layers, and a feed-forward sublayer would let the
        // model learn the task another way: the tiny induction model keeps two attention-only layers.
        const bool twoLayers = recipe.task == core::TaskKind::Induction;
        recipe.model.encoderLayers = 1;
        recipe.model.decoderLayers = twoLayers ? 2 : 1;
        recipe.model.dModel = 32;
        recipe.model.heads = 2;
        recipe.model.dFf = recipe.model.dFf == 0 ? 0 : 64;
    }
    recipe.steps = steps;
    // Every 1/10 of the run, on a multiple of the log's 10 steps like the frames.
    recipe.evalEvery = std::max<int64_t>(50, recipe.steps / 100 * 10);
    recipe.evalExamples = 200; // quick enough to check often; the CLI's 1,000 are for the record
    recipe.name = recipe.name + "-trained";
    // Checkpoints often enough that a crash loses little of a classroom run (4,000 steps: every 200).
    recipe.checkpointEvery = std::min(recipe.checkpointEvery, std::max<int64_t>(20, recipe.steps / 20));
    return recipe;
}

QString TrainPresets::sizeLabel(const core::ModelConfig& m) {
    QString label =
        m.hasEncoder()
            ? tr("%1+%2 layers, d_model %3").arg(m.encoderLayers).arg(m.decoderLayers).arg(m.dModel)
            : tr("%1 layers, d_model %2").arg(m.decoderLayers).arg(m.dModel);
    if (m.dFf == 0)
        label += tr(", attention-only");
    return label;
}

int TrainPresets::probeEvery(int64_t steps) {
    // A frame every 1/40 of the run, enough to watch a pattern form and few enough to keep in memory; from
    // 10 steps apart on, on a step the log also has a row for, so each frame has its loss and head scores.
    const int64_t every = std::max<int64_t>(1, steps / 40);
    return static_cast<int>(every < 10 ? every : (every + 9) / 10 * 10);
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
