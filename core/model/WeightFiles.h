#pragma once
// The weights of a model directory as one set of tensors: model.safetensors, or the shards that
// model.safetensors.index.json names (Hugging Face's layout for large models: {"weight_map": {tensor:
// file}}), each checked and read tensor by tensor (SafetensorsFile); the index is checked against the shards
// (every tensor where it says, none twice, none unlisted). PyTorch's pickled weights (pytorch_model.bin,
// *.pt, *.pth) are refused with how to convert them: unpickling a file runs code stored in it.

#include "core/model/Safetensors.h"

#include <string>
#include <vector>

namespace core {

class WeightFiles {
public:
    /// One file's tensors (a model written here, a checkpoint, a test's file).
    WeightFiles(SafetensorsFile file); // NOLINT: implicit, so a single file is a weight set
    /// The weights of the model directory `dir`. Throws ModelError when there are none it can read (naming
    /// what is there instead), IoError, or FormatError naming the file and the tensor.
    static WeightFiles open(const std::string& dir);

    /// What messages name: the one file, or the index.
    const std::string& path() const { return path_; }
    /// Every tensor of every shard, sorted by name.
    const std::vector<TensorInfo>& tensors() const { return tensors_; }
    const TensorInfo* find(const std::string& name) const; ///< nullptr when absent
    /// As SafetensorsFile::copyFloat32, from the shard that holds `t` (one of tensors()).
    void copyFloat32(const TensorInfo& t, float* out) const;
    std::size_t shards() const { return shards_.size(); }

private:
    WeightFiles() = default;
    /// Lists every shard's tensors, sorted by name, with the shard of each.
    void collect();

    std::string path_;
    std::vector<SafetensorsFile> shards_;
    std::vector<TensorInfo> tensors_;  // sorted by name
    std::vector<std::size_t> shardOf_; // the shard of tensors_[i]
};

} // namespace core
