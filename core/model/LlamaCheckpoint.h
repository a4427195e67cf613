#pragma once
// Hugging Face Llama-family directories (LlamaForCausalLM, MistralForCausalLM, Qwen2ForCausalLM: config.json
// with their config classes' keys, model.safetensors or its shards with the transformers module names) read
// as our decoder-only model: RMSNorm pre-norm blocks, rotary positions turning dimension i with i + hs/2,
// grouped-query attention, a SwiGLU feed-forward, a tied or untied output without bias.

#include "core/model/ModelConfig.h"

#include <nlohmann/json_fwd.hpp>

#include <string>

namespace core {

class WeightFiles;
namespace nn {
class TransformerImpl;
}

/// Whether a config.json's "model_type" is one of the family's ("llama", "mistral", "qwen2").
bool isLlamaFamily(const std::string& modelType);

/// Our decoder-only config for a Llama, Mistral or Qwen2 config.json (transformers' defaults for keys left
/// out). Throws ConfigError naming the key for a bad value or for an option that changes the maths in a way
/// this program does not implement (another activation, a head_dim other than hidden_size / heads, a rope
/// scaling other than linear and llama3). Mistral's sliding window bounds max_len, so that every input
/// attnscope takes is one the window does not cut. The tokenizer fields name vocab.json and merges.txt.
ModelConfig llamaConfigFromParsed(const nlohmann::json& json, const std::string& source);

/// Copies the checkpoint's tensors ("model." prefixed or not; lm_head beside) into a net built from
/// llamaConfigFromParsed(). Saved rotary tables (rotary_emb.inv_freq) are skipped; a tied model's lm_head
/// is accepted only when it equals embed_tokens. Throws ModelError naming the file and the tensor for a
/// missing tensor (a bias the config says it has included), a wrong shape or a tensor that is not part of
/// the model.
/// `config` is the config.json the net's config was made from (which biases the checkpoint holds).
void loadLlamaWeights(nn::TransformerImpl& net, const WeightFiles& files, const nlohmann::json& config);

} // namespace core
