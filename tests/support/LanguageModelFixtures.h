#pragma once
// Byte-level BPE fixtures shared by the BPE trainer and text corpus tests.

#include "core/text/BpeTrainer.h"
#include "core/text/ByteLevelBpe.h"

#include <string>
#include <vector>

// Short, varied text: repeated letters (pairs that overlap), digits, contractions and multi-byte UTF-8.
inline const std::vector<std::string>& bpeText() {
    static const std::vector<std::string> text = {
        "the cat sat on the mat and the hat sat on the cat",
        "mississippi is a river; the rivers of the south meet it",
        "aaaa aaaaa aa bbbb 1234 12345 don't won't it's",
        "naïve café, über straße — 東京 and 東京タワー",
        "the theory of the thermal therapy is there",
    };
    return text;
}

// The same text three times over, so every pair in it is frequent enough to merge.
inline std::vector<std::string> repeatedBpeText() {
    std::vector<std::string> docs;
    for (int i = 0; i < 3; ++i)
        docs.insert(docs.end(), bpeText().begin(), bpeText().end());
    return docs;
}

inline core::ByteLevelBpe trainBpe(const std::vector<std::string>& docs, int vocabSize, int minCount = 2) {
    core::BpeTrainOptions o;
    o.vocabSize = vocabSize;
    o.minCount = minCount;
    return core::trainByteLevelBpe(docs, o);
}
