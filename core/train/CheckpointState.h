#pragma once
// A training run's checkpoint folder on disk: where it is (checkpoint/, or checkpoint.old/ after a crash
// between the two renames that replace it), its state.json, and replacing it as a whole. The tensors in it
// (the model directory, optimizer.safetensors) are the Trainer's.

#include "core/train/TrainRecipe.h"

#include <cstdint>
#include <string>

namespace core {

struct CheckpointState {
    std::string dir;            ///< the checkpoint folder it was read from
    int64_t step = 0;           ///< optimizer steps the run had taken
    int64_t optimizerSteps = 0; ///< Adam's step count (its bias correction)
    double elapsedSeconds = 0.0;
    double loss = 0.0;
    TrainRecipe recipe; ///< as the run stood, its end moved by a resume included

    /// Whether outDir holds a checkpoint to resume.
    static bool exists(const std::string& outDir);
    /// Reads and checks state.json field by field. Throws ModelError when there is no checkpoint,
    /// FormatError naming the file and the field for a malformed one.
    static CheckpointState read(const std::string& outDir);
    /// Writes state.json into a checkpoint folder being made.
    void write(const std::string& checkpointDir) const;
    /// Puts the folder `fresh` in place of outDir/checkpoint so that at every moment either checkpoint/ or
    /// checkpoint.old/ is complete. Throws IoError when it cannot.
    static void replace(const std::string& outDir, const std::string& fresh);
};

} // namespace core
