#pragma once
// Snapshots with made-up but valid attention (softmax rows), for widget tests that need known weights of
// any shape without running a model.

#include "core/run/AttentionSnapshot.h"

#include <QtTest>

#include <cmath>
#include <memory>
#include <random>
#include <string>

// Softmax rows with a per-head sharpness, so heads differ and no weight reaches 1; decoder rows are causal.
inline void fillBlock(core::AttentionBlock& b, int layers, int heads, int queries, int keys, bool causal,
                      std::mt19937& rng) {
    b.resize(layers, heads, queries, keys);
    std::normal_distribution<float> logit(0.0f, 1.0f);
    std::vector<float> row(static_cast<std::size_t>(keys));
    for (int l = 0; l < layers; ++l)
        for (int h = 0; h < heads; ++h)
            for (int q = 0; q < queries; ++q) {
                const int visible = causal ? q + 1 : keys;
                float sum = 0.0f;
                for (int k = 0; k < visible; ++k) {
                    row[std::size_t(k)] = std::exp(logit(rng) * (0.3f + 0.4f * float(h)));
                    sum += row[std::size_t(k)];
                }
                for (int k = 0; k < visible; ++k)
                    b.data.mutableData()[b.index(l, h, q, k)] = row[std::size_t(k)] / sum;
            }
}

/// Every kind filled; srcLen 0 makes a decoder-only snapshot. With `tricky`, source words include a
/// leading space and an unknown piece, so labels go through tokenDisplayText.
inline std::shared_ptr<const core::AttentionSnapshot>
syntheticSnapshot(int layers, int heads, int srcLen, int tgtLen, unsigned seed, bool tricky = false) {
    auto s = std::make_shared<core::AttentionSnapshot>();
    for (int i = 0; i < srcLen; ++i)
        s->srcTokens.push_back(core::Token{10 + i,
                                           (tricky && i % 3 == 1 ? " w"
                                            : tricky             ? "w"
                                                                 : "s") +
                                               std::to_string(i),
                                           tricky && i == 2, false});
    s->tgtTokens.push_back(core::Token{1, "<bos>", false, true});
    for (int i = 1; i < tgtLen; ++i)
        s->tgtTokens.push_back(core::Token{20 + i, "t" + std::to_string(i), false, false});
    std::mt19937 rng(seed);
    if (srcLen > 0) {
        fillBlock(s->encoder, layers, heads, srcLen, srcLen, false, rng);
        fillBlock(s->cross, layers, heads, tgtLen, srcLen, false, rng);
    }
    fillBlock(s->decoder, layers, heads, tgtLen, tgtLen, true, rng);
    return s;
}

/// The rows of a keys_data(): every navigation key with the {dLayer, dHead} it must emit.
inline void addNavigationKeyRows() {
    QTest::addColumn<int>("key");
    QTest::addColumn<int>("dLayer");
    QTest::addColumn<int>("dHead");
    QTest::newRow("left") << int(Qt::Key_Left) << 0 << -1;
    QTest::newRow("right") << int(Qt::Key_Right) << 0 << 1;
    QTest::newRow("up") << int(Qt::Key_Up) << -1 << 0;
    QTest::newRow("down") << int(Qt::Key_Down) << 1 << 0;
    QTest::newRow("page up") << int(Qt::Key_PageUp) << -1 << 0;
    QTest::newRow("page down") << int(Qt::Key_PageDown) << 1 << 0;
}
