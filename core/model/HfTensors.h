#pragma once
// A Hugging Face checkpoint's tensors taken by name into our modules: each checked for its shape as it is
// taken, converted to float32, and whatever is left untaken refused, so that a checkpoint of another
// architecture or config never loads half-used.

#include "core/model/WeightFiles.h"

#include <torch/types.h>

#include <set>
#include <string>
#include <vector>

namespace core {

class HfTensors {
public:
    /// prefix: put before every name but those starting with one of `beside` (lm_head's, which sits beside
    /// the base model in the *ForCausalLM classes; BERT's "cls."). family names the architecture in
    /// messages ("GPT-2").
    HfTensors(const WeightFiles& files, std::string prefix, std::string family,
              std::vector<std::string> beside = {"lm_head."});

    const TensorInfo* find(const std::string& name) const;
    /// The tensor, as float32 of exactly this shape. Throws ModelError naming the file and tensor when it
    /// is missing or shaped otherwise ("config.json implies …").
    torch::Tensor take(const std::string& name, const std::vector<int64_t>& shape);
    torch::Tensor read(const TensorInfo& info, const std::vector<int64_t>& shape);
    /// Marks a tensor the network does without (a saved mask, a cached rotary table) as used, if present.
    void skip(const std::string& name);
    /// Throws ModelError naming the first tensor nothing took.
    void refuseLeftovers() const;
    const std::string& path() const { return files_.path(); }

    static std::string shapeText(const std::vector<int64_t>& shape);

private:
    std::string fullName(const std::string& name) const;

    const WeightFiles& files_;
    std::string prefix_, family_;
    std::vector<std::string> beside_;
    std::set<std::string> used_;
};

} // namespace core
