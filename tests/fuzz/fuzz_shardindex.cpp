// Fuzz target: a sharded model's model.safetensors.index.json (core::WeightFiles::open), on a folder of
// shards.
//
// The reader only reads a folder, so each input is written into one (FuzzSections.h): the input is the
// index; sections after it ("=== name", "=== name/", "=== name -> target") add files, directories and links
// for that input alone. An input that starts with "=== " is all sections, so the index itself can be a
// directory or a link. The folder always holds the same shards, which inputs name or misname:
//
//   model-00001-of-00002.safetensors   tensors a (2) and b (1×2), F32
//   model-00002-of-00002.safetensors   tensor c (3), F16
//   dup.safetensors                    tensor a again
//   empty.safetensors                  no tensors        truncated.safetensors   a header cut short
//   dir.safetensors/                   a directory       dangling.safetensors -> missing.safetensors
//   link.safetensors -> model-00002-of-00002.safetensors
//   outside.safetensors -> ../outside.safetensors        (a good shard beside the folder, with tensor c)
//
// A folder the reader refuses must be refused with a core::Error (a ModelError, FormatError or IoError
// naming the index or the shard). A folder it accepts must have read nothing outside the folder
// (core/base/FolderLinks.h: links out of it are refused), and give every tensor of the weight map once,
// sorted by name, each found where it is listed and read whole (copyFloat32 into numel floats). The seeds:
// a good index, and the cases above: shard names with ../ or an absolute path, a tensor in two shards, a
// tensor listed in the wrong shard or in none, missing shards, a shard that is a directory or a dangling
// link, duplicate keys, 1e400, deep nesting, more than 512 shards.
//
//   build-fuzz/tests/fuzz/fuzz_shardindex tests/fuzz/corpus/fuzz_shardindex   (scripts/fuzz.sh runs it)

#include "FuzzSections.h"

#include "core/base/Errors.h"
#include "core/model/WeightFiles.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

// A safetensors file of the given tensors (name, dtype, shape, raw data), offsets one after the other.
struct Raw {
    std::string name, dtype;
    std::vector<int64_t> shape;
    std::string data;
};

std::string safetensors(const std::vector<Raw>& tensors) {
    nlohmann::json header = nlohmann::json::object();
    std::string data;
    for (const auto& t : tensors) {
        header[t.name] = {{"dtype", t.dtype},
                          {"shape", t.shape},
                          {"data_offsets", {data.size(), data.size() + t.data.size()}}};
        data += t.data;
    }
    const auto h = header.dump();
    std::string out(8, '\0');
    uint64_t n = h.size();
    for (int i = 0; i < 8; ++i)
        out[std::size_t(i)] = static_cast<char>((n >> (8 * i)) & 0xff);
    return out + h + data;
}

std::string f32(std::vector<float> v) {
    std::string out(v.size() * 4, '\0');
    std::memcpy(out.data(), v.data(), out.size());
    return out;
}

const std::vector<std::string> kFixed = {"model-00001-of-00002.safetensors",
                                         "model-00002-of-00002.safetensors",
                                         "dup.safetensors",
                                         "empty.safetensors",
                                         "truncated.safetensors",
                                         "dir.safetensors",
                                         "dangling.safetensors",
                                         "link.safetensors",
                                         "outside.safetensors"};

fs::path makeFolder() {
    const auto scratch = fuzz::scratchFolder("fuzz-shardindex");
    const auto dir = scratch / "folder";
    fs::create_directory(dir);
    const Raw a{"a", "F32", {2}, f32({0.5f, -1.0f})}, b{"b", "F32", {1, 2}, f32({2.0f, 3.0f})},
        c{"c", "F16", {3}, std::string("\x00\x3c\x00\x40\x00\xbc", 6)};
    auto write = [](const fs::path& p, const std::string& bytes) {
        std::ofstream(p, std::ios::binary) << bytes;
    };
    write(dir / kFixed[0], safetensors({a, b}));
    write(dir / kFixed[1], safetensors({c}));
    write(dir / kFixed[2], safetensors({a}));
    write(dir / kFixed[3], safetensors({}));
    write(dir / kFixed[4], safetensors({a, b}).substr(0, 20));
    fs::create_directory(dir / kFixed[5]);
    fs::create_symlink("missing.safetensors", dir / kFixed[6]);
    fs::create_symlink(kFixed[1], dir / kFixed[7]);
    write(scratch / "outside.safetensors", safetensors({c}));
    fs::create_symlink("../outside.safetensors", dir / kFixed[8]);
    return dir;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const fs::path dir = makeFolder();
    const std::string in(reinterpret_cast<const char*>(data), size);
    const auto parts = fuzz::sections(in);
    fuzz::clearFolder(dir, kFixed);
    if (in.rfind("=== ", 0) != 0)
        std::ofstream(dir / "model.safetensors.index.json", std::ios::binary) << parts[0].body;
    fuzz::buildFolder(parts, dir, true);

    std::unique_ptr<core::WeightFiles> w;
    try {
        w = std::make_unique<core::WeightFiles>(core::WeightFiles::open(dir.string()));
    } catch (const core::Error&) {
        return 0;
    }
    // Accepted: each tensor once, sorted, found, and read whole.
    const auto& tensors = w->tensors();
    if (w->shards() < 1 || w->shards() > 512)
        std::abort();
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        if ((i > 0 && !(tensors[i - 1].name < tensors[i].name)) || w->find(tensors[i].name) != &tensors[i])
            std::abort();
        std::vector<float> values(static_cast<std::size_t>(tensors[i].numel()));
        try {
            w->copyFloat32(tensors[i], values.data());
        } catch (const core::FormatError&) { // a NaN or an infinity in a shard a section wrote
        }
    }
    // Nothing read lay outside the folder: the one file, or the index and its shards.
    std::error_code ec;
    const bool single = fs::exists(dir / "model.safetensors", ec);
    if (fuzz::resolvesOutside(dir, dir / (single ? "model.safetensors" : "model.safetensors.index.json")))
        std::abort();
    // Read through the index: every tensor it lists, and no other.
    if (in.rfind("=== ", 0) != 0 && !single) {
        const auto j = nlohmann::json::parse(parts[0].body, nullptr, false);
        if (j.is_object() && j.contains("weight_map") && j["weight_map"].is_object()) {
            if (j["weight_map"].size() != tensors.size())
                std::abort();
            for (const auto& [name, file] : j["weight_map"].items())
                if (!w->find(name) ||
                    (file.is_string() && fuzz::resolvesOutside(dir, dir / file.get<std::string>())))
                    std::abort();
        }
    }
    return 0;
}
