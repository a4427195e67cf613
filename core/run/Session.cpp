#include "core/run/Session.h"

#include "core/base/Errors.h"
#include "core/run/DecoderFactory.h"

#include <algorithm>

namespace core {

namespace {

// Ends the counting of layers however the passes end: a decoder kept from before must not report its steps.
struct PassesOver {
    AnalysisProgress& passes;
    ~PassesOver() { passes = {}; }
};

// The first point from which `token` is the lens's top at every later point up to the output (tops: one
// per point, the output last); −1 when the output's top is another token (a sampled or forced one).
int commitmentPoint(const std::vector<int64_t>& tops, int64_t token) {
    if (tops.empty() || tops.back() != token)
        return -1;
    auto p = tops.size() - 1;
    while (p > 0 && tops[p - 1] == token)
        --p;
    return static_cast<int>(p);
}

} // namespace

Session::Session(std::shared_ptr<const Model> model)
    : Session(std::move(model),
              [](std::shared_ptr<const Model> m, const std::vector<int64_t>& src, int64_t positions,
                 const HeadAblation& ablation, const LayerDone& layerDone) {
                  return startDecoder(std::move(m), src, true, positions, ablation, layerDone);
              }) {}

Session::Session(std::shared_ptr<const Model> model, StepDecoderFactory start)
    : model_(std::move(model)), start_(std::move(start)) {}
Session::~Session() = default;

void Session::analyze(const std::string& text, const std::string& tgtPrefix) {
    if (text.empty())
        throw InputError("the text is empty");
    const bool enc = model_->config().hasEncoder();
    auto read = enc ? model_->sourceTokens(text) : model_->targetTokens(text);
    // A tokenizer without an unknown token leaves out what it cannot spell, and a tokenizer.json prompt may
    // start with nothing: a text of such characters alone gives no token to run on.
    if (read.empty())
        throw InputError("the text has no token this model's tokenizer can spell");
    // Too long a text is read up to the limit, and the cut is kept to be shown: a blank view would leave
    // the user guessing which part was too much.
    const auto total = read.size();
    const auto limit = static_cast<std::size_t>(positions());
    if (read.size() > limit)
        read.resize(limit);
    if (!model_->config().hasDecoder())
        start(std::move(read), {}); // an encoder-only model decodes nothing
    else if (enc)
        start(std::move(read), model_->targetTokens(tgtPrefix));
    else
        start({}, std::move(read));
    textTokens_ = total;
}

void Session::analyzeIds(const std::vector<int64_t>& src, const std::vector<int64_t>& tgtPrefix) {
    const bool enc = model_->config().hasEncoder();
    auto tgt = tgtPrefix.empty() && model_->config().hasDecoder()
                   ? std::vector<int64_t>{model_->targetTokenizer().vocab().bos()}
                   : tgtPrefix;
    start(enc ? model_->tokensFromIds(src, true) : std::vector<Token>{},
          model_->tokensFromIds(enc ? tgt : src, false));
}

void Session::start(std::vector<Token> src, std::vector<Token> tgtPrefix) {
    std::vector<int64_t> srcIds;
    for (const auto& t : src)
        srcIds.push_back(t.id);
    if (static_cast<int64_t>(tgtPrefix.size()) > positions())
        throw InputError("the text has " + std::to_string(tgtPrefix.size()) +
                         " tokens; this model takes at most " + std::to_string(positions()));
    // Build everything first, so a failure leaves the previous run intact.
    const PassesOver over{passes_};
    auto decoder = startPasses(srcIds, model_->config().hasEncoder() ? src.size() : tgtPrefix.size());
    std::vector<int64_t> prefixIds;
    for (const auto& t : tgtPrefix)
        prefixIds.push_back(t.id);
    std::vector<StepDecoder::Step> steps;
    steps.push_back(decoder->push(prefixIds)); // the whole prefix in one pass
    decoder_ = std::move(decoder);
    steps_ = std::move(steps);
    src_ = std::move(src);
    tgt_ = std::move(tgtPrefix);
    initial_ = tgt_.size();
    forced_.clear();
    textTokens_ = model_->config().hasEncoder() ? src_.size() : tgt_.size();
}

void Session::setAblation(const HeadAblation& ablation) {
    checkAblation(ablation, model_->config());
    if (ablation == ablation_)
        return;
    const auto before = ablation_;
    ablation_ = ablation;
    if (!decoder_)
        return;
    try {
        replay();
    } catch (...) {
        ablation_ = before;
        throw;
    }
}

std::unique_ptr<StepDecoder> Session::startPasses(const std::vector<int64_t>& srcIds, std::size_t tokens) {
    const auto& c = model_->config();
    passes_ = {};
    passes_.tokens = tokens;
    // The encoder's pass and the prefix's: the layers a Transformer reports (the recurrent families report
    // none, and their passes are short).
    if (c.family == Family::Transformer)
        passes_.layers = (c.hasEncoder() ? c.encoderLayers : 0) + (c.hasDecoder() ? c.decoderLayers : 0);
    if (progress_)
        progress_(passes_);
    return start_(model_, srcIds, positions(), ablation_, [this] {
        if (passes_.layers == 0 || !progress_)
            return; // a step after the analysis: nothing to report
        passes_.layersDone = std::min(passes_.layersDone + 1, passes_.layers);
        progress_(passes_);
    });
}

void Session::replay() {
    const PassesOver over{passes_};
    auto decoder = startPasses(sourceIds(), model_->config().hasEncoder() ? src_.size() : tgt_.size());
    const auto prefix = prefixIds();
    std::vector<StepDecoder::Step> steps;
    steps.push_back(decoder->push(prefix));
    passes_ = {}; // the steps replayed after the prefix are short
    for (std::size_t i = initial_; i < tgt_.size(); ++i)
        steps.push_back(decoder->push({tgt_[i].id}));
    decoder_ = std::move(decoder);
    steps_ = std::move(steps);
}

const std::vector<float>& Session::nextTokenLogProbs() const {
    static const std::vector<float> none;
    return steps_.empty() ? none : steps_.back().logProbs;
}

std::vector<int64_t> Session::sourceIds() const {
    std::vector<int64_t> ids;
    for (const auto& t : src_)
        ids.push_back(t.id);
    return ids;
}

std::vector<int64_t> Session::targetIds() const {
    std::vector<int64_t> ids;
    for (const auto& t : tgt_)
        ids.push_back(t.id);
    return ids;
}

std::vector<int64_t> Session::prefixIds() const {
    auto ids = targetIds();
    ids.resize(std::min(ids.size(), initial_));
    return ids;
}

int64_t Session::positions() const {
    return model_->config().positions(pastMaxLen_);
}

RunEnding Session::ending() const {
    if (!decoder_ || !decoder_->generates())
        return RunEnding::ReadsOnly;
    const auto eos = model_->targetTokenizer().vocab().eos();
    if (tgt_.size() > initial_ && tgt_.back().id == eos)
        return RunEnding::Eos;
    if (static_cast<int64_t>(tgt_.size()) >= positions())
        return RunEnding::MaxLength;
    return RunEnding::Open;
}

bool Session::generates() const {
    return decoder_ && decoder_->generates();
}

InsideRow Session::inside(const InsideQuery& query) const {
    if (!decoder_)
        throw InputError("nothing to open: analyze a text first");
    auto row = decoder_->inside(query);
    // The pooling row's query is the classifier's learned summary, "<pool>", as the snapshot labels it.
    row.queryTokens = query.kind == AttentionKind::Pooling
                          ? std::vector<Token>{Token{-1, "<pool>", false, true}}
                      : query.kind == AttentionKind::Encoder ? src_
                                                             : tgt_;
    row.keyTokens = query.kind == AttentionKind::Decoder ? tgt_ : src_;
    row.captured = capturedRow(query);
    return row;
}

std::vector<float> Session::capturedRow(const InsideQuery& q) const {
    std::vector<float> scratch;
    if (q.kind == AttentionKind::Encoder || q.kind == AttentionKind::Pooling) {
        const auto& b = decoder_->sourceAttention();
        const float* r = b.row(q.layer, q.head, q.row, scratch);
        return {r, r + b.keys};
    }
    // Row q of the target came from the step that fed token q (as in snapshot()).
    int first = 0;
    for (const auto& st : steps_) {
        const auto& b = q.kind == AttentionKind::Decoder ? st.selfRows : st.crossRows;
        if (q.row < first + b.queries) {
            const float* r = b.row(q.layer, q.head, q.row - first, scratch);
            // A step's row holds the keys up to its own position; the rest are the causal zeros.
            std::vector<float> out(r, r + b.keys);
            if (q.kind == AttentionKind::Decoder)
                out.resize(tgt_.size(), 0.0f);
            return out;
        }
        first += b.queries;
    }
    return {};
}

SamplingPipeline Session::samplingPipeline(int shown) const {
    if (!decoder_)
        throw InputError("nothing to sample from: analyze a text first");
    if (steps_.back().logProbs.empty())
        throw InputError("nothing to sample from: an encoder-only model has a distribution only for a mask "
                         "token in its text, with its masked-LM head");
    auto p = core::samplingPipeline(steps_.back().logProbs, sampling_, samplingStep(), shown);
    const auto& vocab = model_->targetTokenizer().vocab();
    for (auto& c : p.candidates)
        c.text = vocab.token(c.id);
    p.chosenText = vocab.token(p.chosen);
    p.ending = ending();
    p.finished = p.ending != RunEnding::Open;
    return p;
}

int64_t Session::samplingStep() const {
    return static_cast<int64_t>(tgt_.size());
}

int64_t Session::step() {
    if (finished())
        return -1;
    const auto token = sampleToken(steps_.back().logProbs, sampling_, samplingStep());
    push(token);
    return token;
}

void Session::force(int64_t token) {
    if (!decoder_)
        throw InputError("nothing to decode: analyze a text first");
    push(token);
    forced_.push_back(static_cast<int>(tgt_.size()) - 1);
}

void Session::push(int64_t token) {
    auto step = decoder_->push({token}); // validates the id and the length
    tgt_.push_back(model_->tokensFromIds({token}, false).front());
    steps_.push_back(std::move(step));
}

bool Session::back() {
    if (tgt_.size() <= initial_)
        return false;
    tgt_.pop_back();
    steps_.pop_back();
    if (!forced_.empty() && forced_.back() >= static_cast<int>(tgt_.size()))
        forced_.pop_back();
    decoder_->rewind(static_cast<int64_t>(tgt_.size()));
    return true;
}

void Session::reset() {
    while (back()) {
    }
}

int64_t Session::decodedCount() const {
    return static_cast<int64_t>(tgt_.size() - initial_);
}

std::string Session::decodedText() const {
    std::vector<int64_t> ids;
    for (std::size_t i = initial_; i < tgt_.size(); ++i)
        ids.push_back(tgt_[i].id);
    return model_->targetTokenizer().detokenize(ids);
}

AttentionSnapshot Session::snapshot() const {
    AttentionSnapshot snap;
    snap.modelName = model_->config().name;
    if (!decoder_)
        return snap;
    snap.srcTokens = src_;
    snap.tgtTokens = tgt_;
    snap.textTokens = static_cast<int>(textTokens_);
    snap.readTokens = static_cast<int>(model_->config().hasEncoder() ? src_.size() : initial_);
    snap.forced = forced_;
    snap.maxLen = model_->config().maxLen;
    const auto& c = model_->config();
    snap.kvHeads = c.keyValueHeads() < c.heads ? c.keyValueHeads() : 0;
    snap.block(decoder_->sourceKind()) = decoder_->sourceAttention();
    if (const auto* detail = decoder_->poolingDetail())
        snap.pooled = *detail;
    snap.encodeMs = decoder_->encodeMs();
    snap.ablation = ablation_.text();
    snap.encoderNorms = decoder_->valueNorms(AttentionKind::Encoder);
    snap.decoderNorms = decoder_->valueNorms(AttentionKind::Decoder);
    snap.crossNorms = decoder_->valueNorms(AttentionKind::Cross);
    snap.nextTokenLogProbs = steps_.back().logProbs;
    snap.decodes = decoder_->generates();
    snap.maskRow = steps_.back().maskRow;
    snap.decodeMs = steps_.back().ms;
    // The decoding timeline: step k read the position before token initial_ + k, which it produced.
    if (!steps_.front().lensTop.empty()) {
        snap.streamPoints = steps_.front().lensPoints;
        snap.commitment.assign(tgt_.size(), -1);
        for (std::size_t k = 0; k + 1 < steps_.size(); ++k)
            snap.commitment[initial_ + k] = commitmentPoint(steps_[k].lensTop, tgt_[initial_ + k].id);
    }
    const auto& front = steps_.front();
    if (front.selfRows.empty() && front.crossRows.empty())
        return snap; // capture was off
    if (steps_.size() == 1) {
        // Just analysed: the prefix pass's rows are the whole picture (a compact block is shared, not
        // copied).
        snap.decoder = front.selfRows;
        snap.cross = front.crossRows;
        return snap;
    }
    const int t = static_cast<int>(tgt_.size());
    const int s = static_cast<int>(src_.size());
    const auto& self = front.selfRows;
    const auto& cross = front.crossRows;
    if (!self.empty()) {
        snap.decoder.causal = true;
        snap.decoder.allocate(self.layers, self.heads, t, t);
    }
    if (!cross.empty()) // a recurrent decoder has only this, one layer and one head
        snap.cross.allocate(cross.layers, cross.heads, t, s);
    // Row q of every layer and head comes from the step that fed token q; keys after q stay 0 (causal).
    std::vector<float> scratch;
    int q = 0;
    for (const auto& st : steps_) {
        const int rows = st.selfRows.empty() ? st.crossRows.queries : st.selfRows.queries;
        for (int r = 0; r < rows; ++r, ++q) {
            for (int l = 0; l < snap.decoder.layers; ++l)
                for (int h = 0; h < snap.decoder.heads; ++h)
                    snap.decoder.setRow(l, h, q, st.selfRows.row(l, h, r, scratch), q + 1);
            for (int l = 0; l < snap.cross.layers; ++l)
                for (int h = 0; h < snap.cross.heads; ++h)
                    snap.cross.setRow(l, h, q, st.crossRows.row(l, h, r, scratch), s);
        }
    }
    return snap;
}

} // namespace core
