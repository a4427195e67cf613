#pragma once
// Everything that defines a training run, as stored in resources/recipes/*.json, so anyone can reproduce a
// shipped model. Every field has a default; unknown fields are refused.

#include "core/model/ModelConfig.h"
#include "core/train/Tasks.h"

#include <cstdint>
#include <string>

namespace core {

struct TrainRecipe {
    std::string name = "model";        // the model's name (config.json "name")
    TaskKind task = TaskKind::Reverse; // "copy" | "reverse" | "sort" | "addition" | "translation" |
                                       // "language_model" | "classification"
    int minLen = 1;                    // shortest generated sequence (addition: digits per number)
    int maxLen = 10;                   // longest generated sequence
    ModelConfig model;                 // "model": architecture and sizes; vocabulary sizes come from the task
    int batchSize = 128;               // examples per step
    int64_t steps = 3000;              // optimizer steps in all
    int warmup = 400;              // steps of linear warm-up in the schedule of "Attention Is All You Need"
    double lrFactor = 1.0;         // lr = factor · d_model^-0.5 · min(step^-0.5, step · warmup^-1.5)
    double adamBeta1 = 0.9;        // Adam's β1
    double adamBeta2 = 0.98;       // Adam's β2 (the paper's value)
    double adamEps = 1e-9;         // Adam's ε
    double labelSmoothing = 0.1;   // probability mass spread over the other tokens
    double clipNorm = 1.0;         // gradient norm limit; 0 turns clipping off
    int lengthBuckets = 16;        // a pool of this many batches is sorted by length, then cut into batches
    uint64_t seed = 1;             // one seed fixes the initial weights, the data and so the whole run
    int64_t checkpointEvery = 500; // steps between checkpoints
    int64_t evalEvery = 500;       // steps between accuracy checks
    int evalExamples = 1000;       // fresh examples per accuracy check
    int threads = 0;               // intra-op threads; 0 uses every core
    // Translation only:
    std::string corpus;               // training pairs (TSV: source, target, tag), relative to baseDir
    std::string valid;                // held-out pairs the chrF checks translate, relative to baseDir
    int spmVocabSize = 8000;          // pieces of the joint SentencePiece vocabulary of both languages
    std::string spmModelType = "bpe"; // "bpe" | "unigram"
    std::string spmModel; // an existing SentencePiece model to read with instead of learning one (another
                          // model's, so two models of one corpus share their pieces), relative to baseDir
    int maxTokens = 100;  // pairs with a side longer than this many pieces are left out
    // Language model only (corpus and valid are then text files, one document a line):
    int bpeVocabSize = 4096; // byte-level BPE tokens learned from the corpus: 4 specials, 256 bytes, merges
    // Classification only (corpus and valid are TSV files of label, text; max_tokens words of a text are
    // read):
    int wordVocabSize = 8000; // the 4 specials and the training texts' most frequent words, lowercased

    /// Not stored: the directory relative corpus paths start from (the recipe file's, or a run's).
    std::string baseDir;

    /// Parses and validates; `source` names the file in messages, baseDir resolves corpus paths.
    static TrainRecipe fromJson(const std::string& text, const std::string& source = "recipe",
                                const std::string& baseDir = {});
    /// Relative corpus paths start from the file's directory.
    static TrainRecipe fromFile(const std::string& path);
    /// A path of the recipe (corpus, valid) as a path to open.
    std::string resolve(const std::string& path) const;
    /// The same recipe with its corpus paths relative to dir and baseDir dir, for storing in a run
    /// directory: the run stays valid when the tree around it moves.
    TrainRecipe rebased(const std::string& dir) const;
    std::string toJson() const;
    /// The task this recipe trains on.
    Task makeTask() const { return Task(task, minLen, maxLen); }
    /// The model config with vocabulary sizes and max_len filled in from the task.
    ModelConfig modelConfig() const;
};

} // namespace core
