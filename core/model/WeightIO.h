#pragma once
// Between the Transformer's parameters and safetensors files, name for name (the seed's state_dict names).

#include "core/model/WeightFiles.h"
#include "core/model/nn/Transformer.h"

#include <string>
#include <utility>
#include <vector>

namespace core {

/// Copies every parameter of `module` (any family's network) from the file, by the name torch gives it (the
/// seed's state_dict names): each must be there with the shape the module has, and the file may hold nothing
/// else. Throws ModelError naming the file and the tensor.
void loadParameters(torch::nn::Module& module, const WeightFiles& file);
/// Every parameter of `module` with its name, as contiguous float32 host tensors.
std::vector<std::pair<std::string, torch::Tensor>> parametersToSave(const torch::nn::Module& module);

/// Copies every parameter from the file. Each tensor must be present with the shape config.json implies and
/// nothing else may be in the file, except the seed's sinusoidal `*_embed.1.pe` buffers (used when present).
void loadWeights(nn::TransformerImpl& net, const WeightFiles& file);

/// Every tensor a file of this model holds, as contiguous float32 host tensors, with the seed's names.
std::vector<std::pair<std::string, torch::Tensor>> tensorsToSave(const nn::TransformerImpl& net);

} // namespace core
