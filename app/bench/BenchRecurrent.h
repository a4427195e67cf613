#pragma once
// `attnscope bench --only recurrent`: the seed's recurrent attention models as the window runs them (model
// directories through core::Session and the families' StepDecoders). What a
// keystroke costs the attention-pooling classifier (one pass over 64 tokens: embedding, BiLSTM, pooling,
// class logits), and what the GRU translator costs per source (encoding 64 tokens) and per decode step
// (one token attending over those 64 states). The shapes are the seed's examples: the classifier with a
// vocabulary of 10,000, embeddings of 100 and 128 hidden units a direction, 2 classes; the translator with
// 256 hidden units and vocabularies of 8,000. scripts/bench-recurrent-vs-seed.sh times the seed's PyTorch
// code on the same weights.

#include "app/bench/BenchMeasure.h"

#include <string>
#include <vector>

struct RecurrentReport {
    Plan plan;
    std::string weights; ///< where the weights came from: "random (seed 1)" or the folder read
    std::vector<Row> rows;
};

/// weightsDir: a folder with classifier.safetensors and translator.safetensors of the shapes above (the
/// seed's script writes them), or empty for random weights.
RecurrentReport measureRecurrent(const Plan& plan, const std::string& weightsDir);
void printText(const RecurrentReport& r);
nlohmann::ordered_json toJson(const RecurrentReport& r);
