#pragma once
// The models of the size table and the token ids fed to them. The ids come from a formula rather than a
// random generator so that scripts/bench_vs_seed.py feeds the seed's code exactly the same ones.

#include "core/model/Model.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

/// One entry of the size table: the model and where it came from.
struct BenchSize {
    std::string id;      ///< "default", "medium", "gpt2", or the model directory given
    std::string weights; ///< "random (seed 1)", or the directory the weights were read from
    std::string note;    ///< what differs from the shape it is named after (a raised max_len), or empty
    std::shared_ptr<const core::Model> model;
};

/// The sizes --sizes knows by name, in the order the table shows them.
const std::vector<std::string>& namedSizes();

/// A size's shape in one line: ModelConfig::shape() with d_ff, the vocabularies and max_len.
std::string describeShape(const core::ModelConfig& c);

/// The model for one entry of --sizes. A name gives random weights: "default" has the shape of the model in
/// defaultModelDir, "medium" is a 6+6-layer d_model 512 8-head encoder–decoder (the seed's make_model
/// defaults) and "gpt2" a 12-layer d_model 768 12-head decoder-only model of GPT-2 small's shape. Anything
/// else is a model directory, loaded with its weights and max_len as they are. The random encoder–decoder
/// sizes get a max_len of at least longest + 1, so a decode step at position T exists for every T asked for.
/// Sets the intra-op thread count to `threads` afterwards (0: every core), since creating a model resets it.
/// Throws core::Error for a bad directory.
BenchSize makeBenchSize(const std::string& entry, const std::string& defaultModelDir, int longest,
                        int threads);

/// GPT-2 small's shape on random weights, as the "gpt2" size, for inputs of `length` tokens: its max_len
/// raised to `length` when that is longer than 1024 (the note says so). Sets the intra-op thread count as
/// makeBenchSize does.
BenchSize makeGpt2Size(int length, int threads);
/// A decoder-only model directory for the long section, its weights as they are. Throws core::InputError when
/// it has an encoder or its max_len is below `length`.
BenchSize loadLongSize(const std::string& dir, int length, int threads);

/// n token ids for vocabulary size `vocab`, different for each salt and never one of the specials 0..3:
/// id_i = 4 + ((i + 1)·7919 + salt·104729) mod (vocab − 4).
std::vector<int64_t> benchIds(int64_t n, int64_t vocab, int64_t salt);
