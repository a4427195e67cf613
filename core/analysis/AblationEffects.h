#pragma once
// What switching heads off changes (Michel et al., 2019): the next-token distribution at the current step
// against the same step with every head on, the greedy output with and without, and a sweep that switches
// each head off alone to find the heads the output depends on.

#include "core/model/HeadAblation.h"
#include "core/run/Session.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace core {

/// How one token's probability moved.
struct ProbabilityChange {
    int64_t id = 0;
    std::string token;
    double before = 0.0; ///< with every head on
    double after = 0.0;  ///< with the heads off
};

struct AblationEffect {
    std::string heads; ///< the heads switched off (HeadAblation::text)
    /// KL(P‖Q) in nats of the next token: P with every head on, Q with the heads off (0, and no changes, for
    /// an encoder-only run without a mask token: it has no distribution).
    double kl = 0.0;
    std::vector<ProbabilityChange> changes; ///< the largest |after − before| first
    /// Greedy outputs from the start of the run (after its teacher-forced prefix), with every head on and
    /// with the heads off; empty until filled by addGreedyOutputs.
    std::vector<Token> greedyFull, greedyAblated;
    std::string textFull, textAblated;
    int firstDifference = -1; ///< the first output position where they differ; −1 when they are the same
};

/// KL(P‖Q) in nats of two distributions given as log-probabilities over the same vocabulary.
double klDivergence(const std::vector<float>& logP, const std::vector<float>& logQ);

/// The `count` tokens whose probability moved most between two distributions (log-probabilities), largest
/// first.
std::vector<ProbabilityChange> largestChanges(const std::vector<float>& logBefore,
                                              const std::vector<float>& logAfter, const Vocabulary& vocab,
                                              int count = 5);

/// The next-token effect of the session's ablation at its current state: its distribution against the
/// distribution the same source and target give with every head on. Throws InputError before analyze().
AblationEffect nextTokenEffect(const Session& session, int shown = 5);

/// Fills effect's greedy outputs: from the session's source and initial prefix, decoded greedily with every
/// head on and with the session's heads off, up to maxTokens tokens (0: until <eos> or the side is full).
void addGreedyOutputs(AblationEffect& effect, const Session& session, int maxTokens = 0);

/// Greedy decoding from a source and a target prefix (for a decoder-only model, the prompt is the prefix
/// and src is ignored) with the heads of `ablation` off, without capture: the tokens after the prefix, <eos>
/// last when it was reached. maxTokens 0: until <eos> or `positions` (max_len when 0).
std::vector<int64_t> greedyContinuation(std::shared_ptr<const Model> model, const std::vector<int64_t>& src,
                                        const std::vector<int64_t>& prefix, const HeadAblation& ablation,
                                        int maxTokens = 0, int64_t positions = 0);

/// One head switched off alone.
struct HeadEffect {
    HeadRef head;
    /// KL(P‖Q) of the next token, averaged over the positions of the greedy output with every head on
    /// (teacher-forced along it, so every position compares like with like).
    double meanKl = 0.0;
    double maxKl = 0.0;       ///< the largest of those
    bool changed = false;     ///< the greedy output with the head off differs
    int firstDifference = -1; ///< where it first differs
    std::string output;       ///< the greedy output with the head off, as text
};

struct AblationSweep {
    std::string baseline;          ///< the greedy output with every head on, as text
    int positions = 0;             ///< the positions the KL is averaged over
    std::vector<HeadEffect> heads; ///< every head of every kind, in the model's order
};

/// Called after each head with the heads done and the heads in all; false stops the sweep.
using SweepProgress = std::function<bool(int done, int total)>;

/// Switches every head of every kind off alone and measures what changes (see HeadEffect), from the source
/// and prefix given (as greedyContinuation reads them), outputs up to maxTokens (0: as greedyContinuation)
/// within `positions` (max_len when 0; a run reading past max_len passes its own). Nothing when `progress`
/// stopped it. Throws InputError for a model without heads (a recurrent family).
std::optional<AblationSweep> ablationSweep(std::shared_ptr<const Model> model,
                                           const std::vector<int64_t>& src,
                                           const std::vector<int64_t>& prefix, int maxTokens = 0,
                                           const SweepProgress& progress = {}, int64_t positions = 0);

} // namespace core
