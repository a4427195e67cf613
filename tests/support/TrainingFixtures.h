#pragma once
// Small corpora and recipes for training tests: a bilingual TSV corpus with its translation recipe, and a
// text corpus of a small grammar with its language-model recipe. Each trains in a second or two.

#include "core/base/Files.h"
#include "core/train/TrainRecipe.h"

#include <QString>

#include <iterator>
#include <random>
#include <string>
#include <vector>

// A small bilingual corpus in the TSV format of data/en-es: adjective–noun phrases and their Spanish.
inline void writeTranslationCorpus(const QString& dir) {
    const char* adj[][2] = {{"red", "rojo"},  {"big", "grande"},    {"old", "viejo"},
                            {"new", "nuevo"}, {"small", "pequeño"}, {"white", "blanco"}};
    const char* noun[][2] = {{"car", "coche"},  {"book", "libro"}, {"dog", "perro"}, {"house", "edificio"},
                             {"man", "hombre"}, {"tree", "árbol"}, {"boat", "barco"}};
    std::string train, valid;
    int i = 0;
    for (const auto& a : adj)
        for (const auto& n : noun)
            for (const char* d : {"the", "a"}) {
                const std::string line = std::string(d) + " " + a[0] + " " + n[0] + "\t" +
                                         (d[0] == 't' ? "el " : "un ") + n[1] + " " + a[1] + "\tgenerated\n";
                (++i % 7 == 0 ? valid : train) += line;
            }
    core::writeFileAtomically((dir + QStringLiteral("/train.tsv")).toStdString(), train);
    core::writeFileAtomically((dir + QStringLiteral("/valid.tsv")).toStdString(), valid);
}

inline core::TrainRecipe translationRecipe(const QString& dir) {
    return core::TrainRecipe::fromJson(R"({"name": "tiny-mt", "task": "translation",
        "corpus": "train.tsv", "valid": "valid.tsv", "spm_vocab_size": 300, "max_tokens": 12,
        "model": {"encoder_layers": 1, "decoder_layers": 1, "d_model": 32, "heads": 2, "d_ff": 64,
                  "share_embeddings": true, "tie_output": true},
        "batch_size": 8, "steps": 12, "warmup": 20, "length_buckets": 2, "seed": 5, "eval_examples": 6})",
                                       "tiny-mt.json", dir.toStdString());
}

// Sentences of a small grammar: regular enough that a tiny model learns something in a few dozen steps.
inline std::vector<std::string> sentences(int n, uint32_t seed) {
    static const char* subjects[] = {"the dog",   "the cat",     "a bird",
                                     "my friend", "the old man", "a small child"};
    static const char* verbs[] = {"sees", "likes", "finds", "follows", "watches"};
    static const char* objects[] = {"the red ball", "a green tree", "the river", "a wooden house",
                                    "the garden"};
    static const char* tails[] = {".", " today.", " again.", " in the morning."};
    std::mt19937 rng(seed); // its output is fixed by the standard; distributions are not, so use %
    auto pick = [&](const auto& list) { return std::string(list[rng() % std::size(list)]); };
    std::vector<std::string> out;
    for (int i = 0; i < n; ++i)
        out.push_back(pick(subjects) + " " + pick(verbs) + " " + pick(objects) + pick(tails));
    return out;
}

inline void writeLines(const QString& path, const std::vector<std::string>& lines) {
    std::string text;
    for (const auto& l : lines)
        text += l + "\n";
    core::writeFileAtomically(path.toStdString(), text);
}

inline void writeTextCorpus(const QString& dir) {
    writeLines(dir + QStringLiteral("/train.txt"), sentences(300, 1));
    writeLines(dir + QStringLiteral("/valid.txt"), sentences(30, 2));
}

inline core::TrainRecipe lmRecipe(const QString& dir, int steps = 40) {
    return core::TrainRecipe::fromJson(R"({"name": "tiny-lm-test", "task": "language_model",
        "corpus": "train.txt", "valid": "valid.txt", "bpe_vocab_size": 300,
        "model": {"architecture": "decoder_only", "decoder_layers": 2, "d_model": 32, "heads": 4,
                  "d_ff": 64, "max_len": 32, "positional_encoding": "learned", "layer_norm": "standard",
                  "norm_eps": 1e-5, "activation": "gelu_tanh", "scale_embeddings": false,
                  "tie_output": true},
        "batch_size": 8, "steps": )" + std::to_string(steps) +
                                           R"(, "warmup": 10, "label_smoothing": 0.0, "clip_norm": 1.0,
        "seed": 7, "eval_examples": 20, "threads": 1})",
                                       "tiny-lm-test.json", dir.toStdString());
}
