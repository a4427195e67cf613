#include "core/train/CheckpointState.h"

#include "core/base/Errors.h"
#include "core/base/Files.h"
#include "core/base/JsonText.h"

#include <nlohmann/json.hpp>

#include <filesystem>

namespace core {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// checkpoint/, or checkpoint.old/ as an earlier version left it when a crash came between its two renames;
// empty if neither.
fs::path folder(const std::string& outDir) {
    const fs::path out(outDir);
    std::error_code ec;
    for (const auto* name : {"checkpoint", "checkpoint.old"})
        if (fs::exists(out / name / "state.json", ec))
            return out / name;
    return {};
}

} // namespace

bool CheckpointState::exists(const std::string& outDir) {
    return !folder(outDir).empty();
}

CheckpointState CheckpointState::read(const std::string& outDir) {
    const auto dir = folder(outDir);
    if (dir.empty())
        throw ModelError(outDir + ": no checkpoint to resume from (checkpoint/state.json is missing)");
    const auto path = (dir / "state.json").string();
    const auto state = parseJsonObject(readFile(path), path);
    // Checked before use: a hand-edited or half-written state must be a message, not a crash.
    const auto fail = [&](const std::string& what) { throw FormatError(path + ": " + what); };
    if (!state.contains("recipe") || !state["recipe"].is_object())
        fail("\"recipe\" is missing or not an object");
    if (!state.contains("step") || !state["step"].is_number_integer() || state["step"].get<int64_t>() < 0)
        fail("\"step\" is missing or not a whole number of steps");
    if (!state.contains("elapsed_seconds") || !state["elapsed_seconds"].is_number())
        fail("\"elapsed_seconds\" is missing or not a number");
    for (const char* key : {"loss", "optimizer_steps"})
        if (state.contains(key) && !state[key].is_number())
            fail(std::string("\"") + key + "\" is not a number");
    CheckpointState s;
    s.dir = dir.string();
    s.step = state["step"].get<int64_t>();
    s.optimizerSteps = state.value("optimizer_steps", s.step);
    s.elapsedSeconds = state["elapsed_seconds"].get<double>();
    s.loss = state.value("loss", 0.0);
    s.recipe = TrainRecipe::fromJson(state["recipe"].dump(), path, outDir);
    return s;
}

void CheckpointState::write(const std::string& checkpointDir) const {
    const json state = {{"step", step},
                        {"optimizer_steps", optimizerSteps},
                        {"elapsed_seconds", elapsedSeconds},
                        {"loss", loss},
                        {"recipe", json::parse(recipe.toJson())}};
    writeFileAtomically((fs::path(checkpointDir) / "state.json").string(), state.dump(2) + "\n");
}

void CheckpointState::replace(const std::string& outDir, const std::string& fresh) {
    // checkpoint/ is whole at every moment (the old one or the new one); checkpoint.old/ is only ever left by
    // versions that renamed in two steps, and goes once a newer checkpoint is in place.
    replaceDirectory(fresh, (fs::path(outDir) / "checkpoint").string());
    std::error_code ec;
    fs::remove_all(fs::path(outDir) / "checkpoint.old", ec);
}

} // namespace core
