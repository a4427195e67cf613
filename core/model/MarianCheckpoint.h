#pragma once
// Hugging Face Marian directories (MarianMTModel and MarianModel, the opus-mt translation models: config.json
// with MarianConfig's keys, model.safetensors with transformers' module names, source.spm, target.spm and
// vocab.json) read as our encoder–decoder: post-norm blocks, embeddings scaled by √d_model, the sinusoid laid
// out in halves, one table shared by both sides and the output, and the final logits bias.

#include "core/model/ModelConfig.h"

#include <nlohmann/json_fwd.hpp>

#include <string>

namespace core {

class Vocabulary;
class WeightFiles;
namespace nn {
class TransformerImpl;
}

/// The output bias of a token Marian's generation never picks: exp() of it is exactly 0 in float32, so its
/// probability is 0, while its log-probability stays finite; and it survives a model saved as F16.
constexpr float kBanned = -60000.0f;

/// Whether a config.json's "model_type" is Marian's ("marian").
bool isMarian(const std::string& modelType);

/// Our encoder–decoder config for a MarianConfig config.json (its defaults for keys left out). Throws
/// ConfigError naming the key for a value out of range or for a setting this program does not implement
/// (encoder and decoder of different widths or head counts, separate source and target vocabularies).
ModelConfig marianConfigFromParsed(const nlohmann::json& json, const std::string& source);

/// Throws ModelError unless vocab.json's <pad> and </s> are the ids config.json names as pad_token_id,
/// decoder_start_token_id and eos_token_id: the decoder starts at <pad> and a source ends with </s>.
void checkMarianSpecialIds(const nlohmann::json& json, const Vocabulary& vocab, const std::string& source);

/// Copies the checkpoint's tensors into a net built from marianConfigFromParsed(). The stored positional
/// tables are used as they are (transformers loads them too); a checkpoint without them gets the formula.
/// A token table saved under several names (shared, each side's embed_tokens, a tied lm_head) must be
/// one table. Throws ModelError naming the file and the tensor for a missing tensor, a wrong shape, tables
/// that differ, or a tensor that is not part of the model. The ids config.json's bad_words_ids lists alone
/// (opus-mt's <pad>) get an output bias of kBanned, so that no token choice picks them, as transformers'
/// generate never does.
void loadMarianWeights(nn::TransformerImpl& net, const WeightFiles& files, const nlohmann::json& config);

} // namespace core
