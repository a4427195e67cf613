#include "core/model/WeightFiles.h"

#include "core/base/Errors.h"
#include "core/base/Files.h"
#include "core/base/FolderLinks.h"
#include "core/base/JsonText.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <map>

namespace core {

namespace fs = std::filesystem;

namespace {

// More shards than published models have (the largest, a few hundred), and each stays open while the model
// loads: past it the index is not one we should try.
constexpr std::size_t kMaxShards = 512;

// What a folder without safetensors weights holds instead, for the message that says so.
std::string otherWeights(const fs::path& dir) {
    std::error_code ec;
    for (const char* name : {"pytorch_model.bin", "pytorch_model.bin.index.json"})
        if (fs::exists(dir / name, ec))
            return name;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        const auto ext = entry.path().extension().string();
        if (entry.is_regular_file(ec) && (ext == ".bin" || ext == ".pt" || ext == ".pth" || ext == ".ckpt"))
            return entry.path().filename().string();
    }
    return {};
}

} // namespace

WeightFiles::WeightFiles(SafetensorsFile file) : path_(file.path()) {
    shards_.push_back(std::move(file));
    collect();
}

void WeightFiles::collect() {
    std::vector<std::pair<TensorInfo, std::size_t>> all;
    for (std::size_t s = 0; s < shards_.size(); ++s)
        for (const auto& t : shards_[s].tensors())
            all.emplace_back(t, s);
    std::sort(all.begin(), all.end(),
              [](const auto& a, const auto& b) { return a.first.name < b.first.name; });
    for (auto& [t, s] : all) {
        tensors_.push_back(std::move(t));
        shardOf_.push_back(s);
    }
}

WeightFiles WeightFiles::open(const std::string& dirName) {
    const fs::path dir(dirName);
    const auto single = dir / "model.safetensors";
    std::error_code ec;
    if (fs::exists(single, ec)) {
        requireWithin(dirName, single.string());
        return WeightFiles(SafetensorsFile::open(single.string()));
    }
    const auto indexPath = dir / "model.safetensors.index.json";
    if (!fs::exists(indexPath, ec)) {
        const auto other = otherWeights(dir);
        if (!other.empty())
            throw ModelError(
                dirName + ": the weights are PyTorch's pickled " + other +
                ", which attnscope does not read (loading a pickle runs code stored in it). Convert "
                "them once with scripts/convert-to-safetensors.py " +
                dirName + " (Debian's python3-torch), which writes model.safetensors beside them");
        throw ModelError(dirName +
                         ": missing model.safetensors (or model.safetensors.index.json and its shards)");
    }
    const auto index = indexPath.string();
    const auto j = parseJsonObject(readFolderFile(index), index);
    if (!j.contains("weight_map") || !j["weight_map"].is_object() || j["weight_map"].empty())
        throw FormatError(index + ": \"weight_map\" must be an object naming each tensor's file");
    // Each file once, in the order the index first names it; every name checked before any file is opened.
    std::map<std::string, std::size_t> fileIndex;
    std::vector<std::string> files;
    std::map<std::string, std::size_t> wanted; // tensor → shard
    for (const auto& [tensor, v] : j["weight_map"].items()) {
        if (!v.is_string())
            throw FormatError(index + ": the file of tensor '" + tensor + "' is not a string");
        const auto file = v.get<std::string>();
        // A shard is a file of this folder: no path that climbs out of it or points elsewhere.
        if (file.empty() || file.find('/') != std::string::npos || file.find('\\') != std::string::npos ||
            file == "." || file == "..")
            throw FormatError(index + ": tensor '" + tensor + "' names the file \"" + file +
                              "\"; a shard must be a file beside the index");
        auto [it, fresh] = fileIndex.emplace(file, files.size());
        if (fresh) {
            if (files.size() == kMaxShards)
                throw FormatError(index + ": names more than " + std::to_string(kMaxShards) + " shards");
            files.push_back(file);
        }
        wanted[tensor] = it->second;
    }
    for (const auto& file : files)
        if (!fs::exists(dir / file, ec))
            throw ModelError(index + ": its shard " + file + " is missing");
    WeightFiles w;
    w.path_ = index;
    for (std::size_t s = 0; s < files.size(); ++s) {
        const auto shardPath = (dir / files[s]).string();
        requireWithin(dirName, shardPath);
        w.shards_.push_back(SafetensorsFile::open(shardPath));
        for (const auto& t : w.shards_.back().tensors()) {
            const auto it = wanted.find(t.name);
            if (it == wanted.end())
                throw FormatError(shardPath + ": tensor '" + t.name + "' is not in " +
                                  indexPath.filename().string() + "'s weight_map");
            if (it->second != s)
                throw FormatError(shardPath + ": tensor '" + t.name +
                                  "' is in this shard, but the index puts it in " + files[it->second]);
        }
    }
    w.collect();
    for (const auto& [tensor, shard] : wanted)
        if (!w.find(tensor))
            throw FormatError(index + ": tensor '" + tensor + "' is not in its shard " + files[shard]);
    return w;
}

const TensorInfo* WeightFiles::find(const std::string& name) const {
    return findTensor(tensors_, name);
}

void WeightFiles::copyFloat32(const TensorInfo& t, float* out) const {
    // One of tensors() as the callers pass it; by name otherwise.
    const bool listed = !tensors_.empty() && &t >= tensors_.data() && &t < tensors_.data() + tensors_.size();
    const auto* mine = listed ? &t : find(t.name);
    if (!mine)
        throw std::invalid_argument("WeightFiles::copyFloat32: no tensor '" + t.name + "'");
    shards_[shardOf_[std::size_t(mine - tensors_.data())]].copyFloat32(*mine, out);
}

} // namespace core
