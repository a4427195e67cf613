// `attnscope convert`: a model directory written again, its weights in another dtype (F16 to ship a model at
// half the size), or in the form the seed's PyTorch code loads strictly (--to seed).

#include "app/Args.h"
#include "app/Commands.h"
#include "app/RunCommand.h"

#include "core/model/Model.h"
#include "core/model/SeedExport.h"

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>

namespace fs = std::filesystem;

namespace {

const char* kHelp = R"(usage: attnscope convert --model DIR --out DIR [--dtype f16|f32]
       attnscope convert --model DIR --out DIR --to seed

Loads the model in DIR and writes it to the --out directory: config.json, the tokenizer file(s) (vocab.json
or the SentencePiece .model) and model.safetensors with the parameters stored as --dtype (default f16,
half the size of f32; rounded to nearest even). The sinusoidal position tables stay f32. A weight beyond
f16's range (±65504) is refused by name rather than written as inf.

--to seed writes F32 weights that the seed's PyTorch code (tests/reference/seed_transformer.py) loads with
load_state_dict(strict=True), computing the same function: position tables of 5,000 rows (the seed's
PositionalEncoding length; ours hold max_len), a shared embedding table under both names, a tied output
layer as generator.proj.weight with a zero bias, and tables divided by sqrt(d_model) for a model without
scale_embeddings. The encoder-decoder with sinusoidal positions, the seed's layer norm (eps 1e-6) and ReLU
is what the seed's modules express; another model is refused naming the field.

--out may not be the model's own directory. Exit status: 0 on success, 2 on bad arguments or input.
)";

core::DType parseDtype(const std::string& s) {
    if (s == "f16")
        return core::DType::F16;
    if (s == "f32")
        return core::DType::F32;
    throw UsageError("--dtype must be f16 or f32, not '" + s + "'");
}

// The same directory however it is spelled (trailing slash, "..", a symlink), also when --out doesn't exist.
bool sameDirectory(const std::string& a, const std::string& b) {
    std::error_code ec;
    const auto ca = fs::weakly_canonical(a, ec);
    if (ec)
        return false;
    const auto cb = fs::weakly_canonical(b, ec);
    return !ec && ca.lexically_normal() == cb.lexically_normal();
}

std::uintmax_t weightBytes(const std::string& dir) {
    std::error_code ec;
    const auto n = fs::file_size(fs::path(dir) / "model.safetensors", ec);
    return ec ? 0 : n;
}

} // namespace

int runConvert(const std::vector<std::string>& argv) {
    return runCommand(
        "convert", kHelp, {{"--model", "--out", "--dtype", "--to"}, {}}, argv, [&](const Args& a) {
            if (!a.has("--model") || !a.has("--out"))
                throw UsageError("--model DIR and --out DIR are required");
            const bool seed = a.has("--to");
            if (seed && a.get("--to") != "seed")
                throw UsageError("--to must be seed, not '" + a.get("--to") + "'");
            if (seed && a.has("--dtype"))
                throw UsageError("--to seed writes F32 (the seed's dtype); leave out --dtype");
            const auto dtype = seed ? core::DType::F32 : parseDtype(a.get("--dtype", "f16"));
            const auto in = a.get("--model"), out = a.get("--out");
            if (out.empty())
                throw UsageError("--out is empty");
            // Rewriting files the loader has just read (and that are the only copy) is a mistake, not a
            // shortcut.
            if (sameDirectory(in, out))
                throw UsageError("--out " + out + " is the model's own directory; write to another one");
            const auto model = core::Model::load(in, core::DeviceChoice::Cpu);
            if (seed)
                core::writeSeedDirectory(*model, out);
            else
                model->save(out, dtype);
            std::printf("wrote %s (%s%s weights, model.safetensors %.1f KB; was %.1f KB)\n", out.c_str(),
                        seed ? "the seed's form, " : "", core::dtypeName(dtype),
                        static_cast<double>(weightBytes(out)) / 1024.0,
                        static_cast<double>(weightBytes(in)) / 1024.0);
            return 0;
        });
}
