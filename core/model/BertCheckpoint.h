#pragma once
// Hugging Face BERT-family directories (BertModel/BertForMaskedLM, RobertaModel/RobertaForMaskedLM and the
// RoBERTa copies XLM-RoBERTa and CamemBERT, DistilBertModel/DistilBertForMaskedLM: config.json with their
// config classes' keys, model.safetensors with the transformers module names) read as our encoder-only
// model: learned positions with the first token type folded in, a norm over the embeddings, post-norm
// blocks with GELU, and the masked-language-model head where the checkpoint has it.

#include "core/model/ModelConfig.h"

#include <nlohmann/json_fwd.hpp>

#include <string>

namespace core {

class WeightFiles;
namespace nn {
class TransformerImpl;
}

/// Whether a config.json's "model_type" is one of the family's ("bert", "roberta", "xlm-roberta",
/// "camembert", "distilbert").
bool isBertFamily(const std::string& modelType);

/// Our encoder-only config for a BERT, RoBERTa or DistilBERT config.json (transformers' defaults for keys
/// left out). Throws ConfigError naming the key for a value out of range or for an option that changes the
/// maths in a way this program does not implement (relative position embeddings, a decoder). RoBERTa's
/// positions start after its padding id, so max_len is max_position_embeddings − pad_token_id − 1. The
/// masked-LM head is off here; bertHasMaskedLmHead() says whether the weights have one.
ModelConfig bertConfigFromParsed(const nlohmann::json& json, const std::string& source);

/// Whether the checkpoint holds the family's masked-LM head (cls.predictions, lm_head, vocab_transform).
bool bertHasMaskedLmHead(const WeightFiles& files, const nlohmann::json& config);

/// Copies the checkpoint's tensors into a net built from bertConfigFromParsed() (with maskedLmHead as
/// bertHasMaskedLmHead() says). The first token type's embedding is added to every position's (a typed text
/// is one segment); the pooler, next-sentence and task heads (classifier, qa_outputs) are skipped: the
/// encoder's attention is what is shown. Throws ModelError naming the file and the tensor for a missing
/// tensor, a wrong shape, an output table that differs from the token table, or a tensor that is not part
/// of the model. `config` is the config.json the net's config was made from.
void loadBertWeights(nn::TransformerImpl& net, const WeightFiles& files, const nlohmann::json& config);

} // namespace core
