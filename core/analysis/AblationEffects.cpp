#include "core/analysis/AblationEffects.h"

#include "core/base/Errors.h"
#include "core/run/DecoderFactory.h"
#include "core/run/StepDecoder.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace core {

namespace {

int64_t argmax(const std::vector<float>& v) {
    return static_cast<int64_t>(std::max_element(v.begin(), v.end()) - v.begin());
}

int firstDifference(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
    const auto n = std::min(a.size(), b.size());
    for (std::size_t i = 0; i < n; ++i)
        if (a[i] != b[i])
            return static_cast<int>(i);
    return a.size() == b.size() ? -1 : static_cast<int>(n);
}

// The source ids a decoder starts from: none for a decoder-only model, whose prompt is the target.
std::vector<int64_t> sourceOf(const Model& model, const std::vector<int64_t>& src) {
    return model.config().hasEncoder() ? src : std::vector<int64_t>{};
}

std::vector<HeadRef> everyHead(const ModelConfig& c) {
    std::vector<HeadRef> heads;
    for (const auto kind : {AttentionKind::Encoder, AttentionKind::Decoder, AttentionKind::Cross}) {
        if (kind != AttentionKind::Decoder && !c.hasEncoder())
            continue;
        const int layers = kind == AttentionKind::Encoder ? c.encoderLayers : c.decoderLayers;
        for (int l = 0; l < layers; ++l)
            for (int h = 0; h < c.heads; ++h)
                heads.push_back({kind, l, h});
    }
    return heads;
}

// The next-token distributions along `tokens` after the prefix: the one after the prefix, then the one after
// each token but the last (those that chose them), with the heads of `ablation` off.
std::vector<std::vector<float>> distributionsAlong(std::shared_ptr<const Model> model,
                                                   const std::vector<int64_t>& src,
                                                   const std::vector<int64_t>& prefix,
                                                   const std::vector<int64_t>& tokens,
                                                   const HeadAblation& ablation, int64_t positions) {
    auto decoder = startDecoder(model, sourceOf(*model, src), false, positions, ablation);
    std::vector<std::vector<float>> out;
    out.push_back(decoder->push(prefix).logProbs);
    for (std::size_t i = 0; i + 1 < tokens.size(); ++i)
        out.push_back(decoder->push({tokens[i]}).logProbs);
    return out;
}

} // namespace

double klDivergence(const std::vector<float>& logP, const std::vector<float>& logQ) {
    double kl = 0.0;
    const auto n = std::min(logP.size(), logQ.size());
    for (std::size_t i = 0; i < n; ++i) {
        const double p = std::exp(double(logP[i]));
        if (p > 0.0)
            kl += p * (double(logP[i]) - double(logQ[i]));
    }
    return std::max(0.0, kl);
}

std::vector<ProbabilityChange> largestChanges(const std::vector<float>& logBefore,
                                              const std::vector<float>& logAfter, const Vocabulary& vocab,
                                              int count) {
    const auto n = std::min(logBefore.size(), logAfter.size());
    std::vector<ProbabilityChange> all(n);
    for (std::size_t i = 0; i < n; ++i)
        all[i] = {static_cast<int64_t>(i), {}, std::exp(double(logBefore[i])), std::exp(double(logAfter[i]))};
    const auto shown = std::min(n, static_cast<std::size_t>(std::max(0, count)));
    std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(shown), all.end(),
                      [](const ProbabilityChange& a, const ProbabilityChange& b) {
                          return std::abs(a.after - a.before) > std::abs(b.after - b.before);
                      });
    all.resize(shown);
    for (auto& c : all)
        c.token = vocab.token(c.id);
    return all;
}

AblationEffect nextTokenEffect(const Session& session, int shown) {
    if (session.targetTokens().empty() && session.sourceTokens().empty())
        throw InputError("nothing to compare: analyze a text first");
    const auto& model = session.sharedModel();
    const bool enc = model->config().hasEncoder();
    auto full =
        startDecoder(model, enc ? session.sourceIds() : std::vector<int64_t>{}, false, session.positions());
    const auto before = full->push(session.targetIds()).logProbs;
    const auto& after = session.nextTokenLogProbs();
    AblationEffect e;
    e.heads = session.ablation().text();
    // An encoder-only run answers only for a [MASK] in its text (with its masked-LM head): without one there
    // is no distribution to compare, and the heads' effect shows in the attention alone.
    if (before.empty() || after.empty())
        return e;
    e.kl = klDivergence(before, after);
    e.changes = largestChanges(before, after, model->targetTokenizer().vocab(), shown);
    return e;
}

std::vector<int64_t> greedyContinuation(std::shared_ptr<const Model> model, const std::vector<int64_t>& src,
                                        const std::vector<int64_t>& prefix, const HeadAblation& ablation,
                                        int maxTokens, int64_t positions) {
    if (!model->config().hasDecoder())
        return {}; // an encoder-only model continues nothing
    const auto limit = positions > 0 ? positions : int64_t{model->config().maxLen};
    const auto eos = model->targetTokenizer().vocab().eos();
    auto decoder = startDecoder(model, sourceOf(*model, src), false, limit, ablation);
    auto logProbs = decoder->push(prefix).logProbs;
    std::vector<int64_t> out;
    while ((maxTokens <= 0 || static_cast<int>(out.size()) < maxTokens) && decoder->length() < limit) {
        const auto next = argmax(logProbs);
        out.push_back(next);
        if (next == eos || decoder->length() + 1 > limit)
            break;
        logProbs = decoder->push({next}).logProbs;
    }
    return out;
}

void addGreedyOutputs(AblationEffect& effect, const Session& session, int maxTokens) {
    const auto& model = session.sharedModel();
    const auto src = session.sourceIds(), prefix = session.prefixIds();
    const auto full = greedyContinuation(model, src, prefix, {}, maxTokens, session.positions());
    const auto ablated =
        greedyContinuation(model, src, prefix, session.ablation(), maxTokens, session.positions());
    const auto& tok = model->targetTokenizer();
    effect.greedyFull = model->tokensFromIds(full, false);
    effect.greedyAblated = model->tokensFromIds(ablated, false);
    effect.textFull = tok.detokenize(full);
    effect.textAblated = tok.detokenize(ablated);
    effect.firstDifference = firstDifference(full, ablated);
}

std::optional<AblationSweep> ablationSweep(std::shared_ptr<const Model> model,
                                           const std::vector<int64_t>& src,
                                           const std::vector<int64_t>& prefix, int maxTokens,
                                           const SweepProgress& progress, int64_t positions) {
    const auto& c = model->config();
    if (c.recurrent())
        throw InputError("head ablation needs a Transformer: '" + c.name + "' is of the " +
                         toString(c.family) + " family, whose attention has no heads to switch off");
    const auto& tok = model->targetTokenizer();
    const auto baseline = greedyContinuation(model, src, prefix, {}, maxTokens, positions);
    const auto reference = distributionsAlong(model, src, prefix, baseline, {}, positions);
    AblationSweep sweep;
    sweep.baseline = tok.detokenize(baseline);
    sweep.positions = static_cast<int>(reference.size());
    const auto heads = everyHead(c);
    for (std::size_t i = 0; i < heads.size(); ++i) {
        HeadAblation off;
        off.set(heads[i], true);
        const auto along = distributionsAlong(model, src, prefix, baseline, off, positions);
        HeadEffect e;
        e.head = heads[i];
        for (std::size_t p = 0; p < along.size(); ++p) {
            const double kl = klDivergence(reference[p], along[p]);
            e.meanKl += kl;
            e.maxKl = std::max(e.maxKl, kl);
        }
        if (!along.empty())
            e.meanKl /= static_cast<double>(along.size());
        const auto output = greedyContinuation(model, src, prefix, off, maxTokens, positions);
        e.firstDifference = firstDifference(baseline, output);
        e.changed = e.firstDifference >= 0;
        e.output = tok.detokenize(output);
        sweep.heads.push_back(std::move(e));
        if (progress && !progress(static_cast<int>(i + 1), static_cast<int>(heads.size())))
            return std::nullopt;
    }
    return sweep;
}

} // namespace core
