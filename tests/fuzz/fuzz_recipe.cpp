// Fuzz target: a training recipe (core::TrainRecipe::fromJson) on any bytes.
//
// A recipe is accepted or refused with a ConfigError or FormatError naming it. An accepted recipe must
// give a model config that validates and a task (an exception escaping from either is a finding), and write
// itself out as JSON that reads back the same: a run directory stores its recipe, and `train --resume` reads
// it again. Nothing is trained and no corpus is opened. The seeds: the built-in recipes of resources/recipes
// and the probe's categories (1e400 steps, negative and huge sizes, deep nesting, duplicate keys, unknown
// fields).
//
//   build-fuzz/tests/fuzz/fuzz_recipe tests/fuzz/corpus/fuzz_recipe   (scripts/fuzz.sh runs it)

#include "core/base/Errors.h"
#include "core/model/ModelConfig.h"
#include "core/train/TrainRecipe.h"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    core::TrainRecipe recipe;
    try {
        recipe = core::TrainRecipe::fromJson(std::string(reinterpret_cast<const char*>(data), size), "recipe",
                                             "/nonexistent");
    } catch (const core::ConfigError&) {
        return 0;
    } catch (const core::FormatError&) {
        return 0;
    }
    // Accepted: the run's model must be one the model directory would accept, and the task one to make.
    recipe.modelConfig().validate("recipe");
    if (recipe.makeTask().generated())
        (void)recipe.makeTask().alphabet();
    const auto text = recipe.toJson();
    if (core::TrainRecipe::fromJson(text, "round trip", "/nonexistent").toJson() != text)
        std::abort();
    return 0;
}
