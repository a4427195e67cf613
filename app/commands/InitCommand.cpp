#include "app/Args.h"
#include "app/Commands.h"
#include "app/RunCommand.h"

#include "core/model/Model.h"

#include <iostream>

namespace {
const char* kInitHelp = R"(usage: attnscope init --config FILE.json --out DIR [--seed N]

Writes a randomly initialised model directory (config.json, vocab.json, model.safetensors) for the
architecture FILE.json describes. Matrices are Xavier-uniform, as the seed's make_model does, and the
seed's sinusoidal buffers are included, so the seed's load_state_dict(strict=True) accepts it.
)";
} // namespace

int runInit(const std::vector<std::string>& argv) {
    return runCommand("init", kInitHelp, {{"--config", "--out", "--seed"}, {}}, argv, [&](const Args& a) {
        if (!a.has("--config") || !a.has("--out"))
            throw UsageError("--config FILE and --out DIR are required");
        const auto seed = a.getInt("--seed", 0);
        if (seed < 0)
            throw UsageError("--seed expects a non-negative number");
        const auto config = core::ModelConfig::fromFile(a.get("--config"));
        const auto src = core::Model::defaultVocabulary(config.hasEncoder() ? config.srcVocabSize : 4);
        const auto tgt = core::Model::defaultVocabulary(config.tgtVocabSize);
        auto c = config;
        if (config.hasEncoder() && config.srcVocabSize != config.tgtVocabSize &&
            c.srcVocabFile == c.tgtVocabFile) {
            c.srcVocabFile = "src_vocab.json";
            c.tgtVocabFile = "tgt_vocab.json";
        }
        const auto model =
            core::Model::createRandom(c, src, tgt, static_cast<uint64_t>(seed), core::DeviceChoice::Cpu);
        model->save(a.get("--out"));
        std::cout << "wrote " << a.get("--out") << "\n";
        return 0;
    });
}
