#pragma once
// run/ — running a model: Session (this file) is the mutable run the window and `dump` drive; Analyze is
// one teacher-forced pass; IncrementalDecoder decodes a token at a time through the KV cache; Sampler
// picks the next token; AttentionSnapshot is the plain value every view reads, with its CSV and JSON
// writers. run/ includes base/, text/ and model/.
//
// The mutable run over an immutable Model: the source, the decoded prefix, the KV cache, the sampling
// settings and the history of steps, so stepping back is a lookup, not a recompute.

#include "core/model/Model.h"
#include "core/run/AttentionSnapshot.h"
#include "core/run/Sampler.h"
#include "core/run/StepDecoder.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace core {

/// How far the passes over a text have got: a long text takes seconds (1,000 tokens of GPT-2's shape).
struct AnalysisProgress {
    std::size_t tokens = 0; ///< the tokens read (source or prompt)
    int layersDone = 0;
    int layers = 0; ///< of the passes made; 0 when the family has no layers to count
};

class Session {
public:
    /// Runs the model with the decoder of its family (startDecoder).
    explicit Session(std::shared_ptr<const Model> model);
    /// Runs the model with decoders `start` makes: the same run, steps and snapshots for a family core
    /// has no module for yet, or for a hand-built model.
    Session(std::shared_ptr<const Model> model, StepDecoderFactory start);
    ~Session();

    /// Starts a run on text: the source of an encoder–decoder (decoding starts from <bos>), or the prompt
    /// of a decoder-only model. tgtPrefix (encoder–decoder only) is teacher-forced after <bos>. A text longer
    /// than positions() is read up to it (textTokens() tells how long it was). Throws InputError for an
    /// empty text or too long a prefix; the previous run is kept then.
    void analyze(const std::string& text, const std::string& tgtPrefix = {});
    /// Starts a run on ids used exactly as given (no specials added). tgtPrefix may be empty, meaning <bos>.
    void analyzeIds(const std::vector<int64_t>& src, const std::vector<int64_t>& tgtPrefix);

    /// Decodes one token with the sampling settings; returns it, or -1 when the run has finished.
    int64_t step();
    /// Appends a chosen token instead of the sampled one (the decode branches from here).
    void force(int64_t token);
    /// Removes the last decoded token; false when back at the start of the run.
    bool back();
    /// Back to the state right after analyze().
    void reset();
    /// True after <eos> or at max_len, and from the start for a family that decodes nothing (a classifier).
    bool finished() const { return ending() != RunEnding::Open; }
    /// Why it decodes no further (RunEnding::Open while it may go on).
    RunEnding ending() const;
    /// Whether the model decodes at all (false for a classifier and an encoder-only model, which read their
    /// text once; finished() is then true from the start).
    bool generates() const;

    /// Lets sides grow past max_len (up to ModelConfig::positions(true)) where the positions extend by
    /// formula; ignored for learned positions. Takes effect at the next analyze().
    void setPastMaxLen(bool past) { pastMaxLen_ = past; }
    bool pastMaxLen() const { return pastMaxLen_ && model_->config().canPassMaxLen(); }
    /// The longest a side may be in this run.
    int64_t positions() const;
    /// Tokens the analysed text had before it was cut to positions() (the side's size when not cut).
    std::size_t textTokens() const { return textTokens_; }

    /// Switches off the heads `ablation` names (HeadAblation; an empty one switches every head back on). A
    /// run under way is run again at once with them off: the same source and the same target tokens, pass by
    /// pass as before, so the history, the step and the forced tokens stay and only the numbers change.
    /// Throws InputError (checkAblation) for a head the model does not have; nothing changes then.
    void setAblation(const HeadAblation& ablation);
    const HeadAblation& ablation() const { return ablation_; }

    /// Called on the thread running analyze(), analyzeIds() and setAblation()'s run again: first with no
    /// layer done, then after each layer of their passes (not during step()).
    void setProgress(std::function<void(const AnalysisProgress&)> progress) {
        progress_ = std::move(progress);
    }

    void setSampling(const SamplingSettings& s) { sampling_ = s; }
    const SamplingSettings& sampling() const { return sampling_; }

    /// The current state: source, target prefix, all captured attention and the next-token distribution.
    AttentionSnapshot snapshot() const;
    /// The computation behind one row of attention in the current state, with its tokens labelled (see
    /// StepDecoder::inside). The row of the current decode step is the target's last. Throws InputError
    /// before analyze() and for a kind, layer, head or row out of range.
    InsideRow inside(const InsideQuery& query) const;
    /// The source and the target (<bos> and the tokens after it) of the current state.
    const std::vector<Token>& sourceTokens() const { return src_; }
    const std::vector<Token>& targetTokens() const { return tgt_; }
    /// Query rows of a kind in the current state: source tokens for the encoder, target tokens otherwise.
    int queryRows(AttentionKind kind) const {
        return static_cast<int>(kind == AttentionKind::Encoder ? src_.size() : tgt_.size());
    }
    /// How the next token is picked from the current distribution with the sampling settings: what
    /// step() will draw.
    SamplingPipeline samplingPipeline(int shown = 20) const;

    /// Log-probabilities of the token after the current target (what snapshot() also holds), without
    /// assembling a snapshot; empty before analyze().
    const std::vector<float>& nextTokenLogProbs() const;
    /// Source and target ids of the current state, and the target's initial prefix (<bos> and any
    /// teacher-forced tokens): what a second run of the same state starts from.
    std::vector<int64_t> sourceIds() const;
    std::vector<int64_t> targetIds() const;
    std::vector<int64_t> prefixIds() const;

    /// Target tokens decoded after the initial prefix, as text.
    std::string decodedText() const;
    int64_t decodedCount() const; ///< tokens added since analyze()
    const Model& model() const { return *model_; }
    const std::shared_ptr<const Model>& sharedModel() const { return model_; }

private:
    void start(std::vector<Token> src, std::vector<Token> tgtPrefix);
    // The passes of the current state run again on a fresh decoder (after the ablation changed).
    void replay();
    void push(int64_t token);
    // A fresh decoder for the current source, counting its layers in progress_ while a start or replay runs.
    std::unique_ptr<StepDecoder> startPasses(const std::vector<int64_t>& srcIds, std::size_t tokens);
    int64_t samplingStep() const; // the random stream of the next draw: step() and the pipeline agree
    std::vector<float> capturedRow(const InsideQuery& query) const; // checked by decoder_->inside first

    std::shared_ptr<const Model> model_;
    SamplingSettings sampling_;
    StepDecoderFactory start_;
    std::unique_ptr<StepDecoder> decoder_;
    std::vector<Token> src_;
    std::vector<Token> tgt_;               // <bos> + prefix + decoded tokens
    std::vector<StepDecoder::Step> steps_; // one per pass: the prefix's, then one per token
    std::size_t initial_ = 0;              // length of the target prefix given to analyze
    std::vector<int> forced_;              // target positions of tokens chosen by force(), ascending
    std::size_t textTokens_ = 0;           // the text's tokens before the cut (see textTokens())
    bool pastMaxLen_ = false;
    HeadAblation ablation_;
    std::function<void(const AnalysisProgress&)> progress_;
    AnalysisProgress passes_; // layers > 0 only while start() or replay() runs its passes
};

} // namespace core
