#pragma once
// What the worker hands the window after each request: the snapshot and what the decoding controls show.
// Immutable once made; shared between history and views.

#include "core/analysis/AblationEffects.h"
#include "core/model/HeadAblation.h"
#include "core/run/AttentionSnapshot.h"
#include "core/run/Sampler.h"

#include <QMetaType>
#include <QString>

#include <cstdint>
#include <memory>
#include <vector>

namespace core {
class Model;
}

namespace ui {

struct Candidate {
    int64_t id = 0;
    QString text;
    double probability = 0.0; ///< the model's (temperature 1)
    double sampled = 0.0; ///< in the distribution the draw uses (after temperature and the cuts); 0 when cut
    bool cut = false;     ///< removed by top-k or top-p
};

struct RunResult {
    std::shared_ptr<const core::Model> model;
    std::shared_ptr<const core::AttentionSnapshot> snapshot;
    QString sourceText;
    QString decodedText;                            ///< the tokens decoded so far, joined as text
    int step = 0;                                   ///< tokens decoded since the analysis (0 = just <bos>)
    bool finished = false;                          ///< <eos> was produced or max_len reached
    core::RunEnding ending = core::RunEnding::Open; ///< which of them (or a model that decodes nothing)
    bool pastMaxLen = false;     ///< the run may go past max_len (asked for, and the positions allow it)
    uint64_t run = 0;            ///< which analysis this belongs to; a newer one makes it stale
    uint64_t request = 0;        ///< the request that produced it
    std::size_t bytes = 0;       ///< memory the snapshot holds, for the history's budget
    core::HeadAblation ablation; ///< the heads switched off in this run
    /// What switching them off changed (next token at this step, greedy outputs); null with every head on.
    std::shared_ptr<const core::AblationEffect> effect;
    bool valueWeighted = false; ///< the snapshot holds the value-weighted blocks (the colour source asked)
};

using RunResultPtr = std::shared_ptr<const RunResult>;

/// Greedy outputs the window decodes beside a run (the Ablation page's and the sweep's) stop after this many
/// tokens: enough to see where two outputs part, and a model of 1,024 positions stays interactive.
constexpr int kGreedyTokens = 64;

} // namespace ui

Q_DECLARE_METATYPE(ui::RunResultPtr)
