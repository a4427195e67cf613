#pragma once
// A model written so that the seed's PyTorch code (tests/reference/seed_transformer.py) loads it with
// load_state_dict(strict=True). Our own files differ from the seed's state_dict in three ways, each a
// choice that saves space or expresses more: the sinusoidal buffers hold max_len rows where the seed's
// PositionalEncoding always has 5,000; a model with shared embeddings stores the table once; a tied output
// layer has no generator.proj tensors (and no bias). This writes all of them the seed's way, computing the
// same function: the 5,000-row tables from the formula, the shared table under both names, the tied table
// as generator.proj.weight with a zero bias, and, for a model without scale_embeddings, the tables divided
// by √d_model (the seed always multiplies by it).

#include "core/model/Model.h"

#include <cstdint>
#include <string>

namespace core {

/// The length of the seed's PositionalEncoding buffer (its max_len default).
constexpr int64_t kSeedPositions = 5000;

/// Writes model's directory (config.json, tokenizer files, model.safetensors in F32) in the seed's form; the
/// config says share_embeddings, tie_output false and scale_embeddings true, so we read it back as the same
/// model. Throws InputError naming the field when the seed's modules cannot express the model
/// (decoder-only, positions other than sinusoidal, the standard layer norm or another eps, an activation
/// other than ReLU, max_len past 5,000); IoError as Model::save.
void writeSeedDirectory(const Model& model, const std::string& dir);

} // namespace core
