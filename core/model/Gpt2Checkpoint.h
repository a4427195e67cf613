#pragma once
// Hugging Face GPT-2 directories (config.json with GPT2Config's keys, model.safetensors with the
// transformers module names, vocab.json and merges.txt) read as our decoder-only model: the same maths
// (pre-norm blocks, torch LayerNorm, learned positions, tied output), other names and layouts.

#include "core/model/ModelConfig.h"

#include <nlohmann/json_fwd.hpp>

#include <string>

namespace core {

class WeightFiles;
namespace nn {
class TransformerImpl;
}

/// Our decoder-only config for a GPT-2 config.json: learned positions, standard LayerNorm, unscaled
/// embeddings, tied output, byte-level BPE from vocab.json and merges.txt. `source` is the config's path
/// (messages name it; the model is named after its directory when "_name_or_path" is absent). Throws
/// FormatError for bad JSON, ConfigError naming the key for a bad value or an option that changes the
/// maths in a way this program does not implement.
ModelConfig gpt2Config(const std::string& text, const std::string& source = "config.json");
/// The same for config.json already parsed.
ModelConfig gpt2ConfigFromParsed(const nlohmann::json& json, const std::string& source);

/// Copies a GPT-2 checkpoint's tensors (names with or without the "transformer." prefix) into a net built
/// from gpt2Config(): Conv1D weights, stored (in, out), are transposed, c_attn is split into q, k and v.
/// The causal-mask buffers attn.bias and attn.masked_bias are skipped, lm_head.weight is accepted only
/// when it equals wte.weight. Throws ModelError naming the file and the tensor for a missing tensor, a
/// wrong shape, an untied lm_head or a tensor that is not part of GPT-2.
void loadGpt2Weights(nn::TransformerImpl& net, const WeightFiles& file);

} // namespace core
