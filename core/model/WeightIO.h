#pragma once
// Between the Transformer's parameters and safetensors files, name for name (the seed's state_dict names).

#include "core/model/Safetensors.h"
#include "core/model/nn/Transformer.h"

#include <string>
#include <utility>
#include <vector>

namespace core {

/// Copies every parameter from the file. Each tensor must be present with the shape config.json implies and
/// nothing else may be in the file, except the seed's sinusoidal `*_embed.1.pe` buffers (used when present).
void loadWeights(nn::TransformerImpl& net, const SafetensorsFile& file);

/// Every tensor a file of this model holds, as contiguous float32 host tensors, with the seed's names.
std::vector<std::pair<std::string, torch::Tensor>> tensorsToSave(const nn::TransformerImpl& net);

} // namespace core
