#include "core/run/IncrementalDecoder.h"

#include "core/base/Errors.h"
#include "core/model/ModelParts.h"
#include "core/run/InsideCompute.h"

#include <torch/torch.h>

#include <chrono>
#include <tuple>

// Shapes: B rows, S source length, n new tokens, C channels, V target vocabulary.

namespace core {

struct IncrementalDecoder::Impl {
    std::shared_ptr<const Model> model;
    bool capture = true;
    std::size_t rows = 1;
    int64_t positions = 0; // the longest a side may be
    torch::Tensor memory;  // (B, S, C)
    torch::Tensor srcMask; // (B, 1, S)
    nn::DecodeCache cache;
    AttentionBlock encoder;
    std::vector<int64_t> src;                 // encoder-only: the text read, to find its mask in
    bool answered = false;                    // encoder-only: the one step has been taken
    std::vector<torch::Tensor> encoderInputs; // [L] (1, S, C), with capture: what the Inside view reads
    double encodeMs = 0.0;
    HeadAblation ablation;
    LayerDone layerDone; // with capture: after each layer of a pass
    // Value norms as valueNorms() made them, [L] (H, keys): the source's values never change once encoded,
    // and the decoder's change only where a rewind drops keys, so each key's norm is computed once.
    std::vector<torch::Tensor> encoderNorms, crossNorms, selfNorms;

    const HeadAblation* ablated() const { return ablation.empty() ? nullptr : &ablation; }

    // Throws InputError unless n tokens (ids of each row) may be fed now.
    void check(const std::vector<int64_t>& ids) const {
        const auto& m = parts(*model);
        const auto pos = cache.length();
        const auto n = static_cast<int64_t>(ids.size());
        if (n == 0)
            throw InputError("no target tokens to feed");
        if (pos + n > positions)
            throw InputError("the target would have " + std::to_string(pos + n) +
                             " tokens; this model takes at most " + std::to_string(positions));
        m.checkIds(ids, m.config.tgtVocabSize, "target", positions);
    }

    // The last positions' hidden states after feeding ids (B, n) at length() on: (B, 1, C).
    torch::Tensor feed(const torch::Tensor& ids, nn::Capture* cap) {
        const auto& m = parts(*model);
        const auto pos = cache.length();
        const auto n = ids.size(1);
        // A single new query may see every cached key, so it needs no mask. Several new queries see the
        // cached keys and the new ones up to their own: row i of the (1, n, pos + n) mask ends at key pos +
        // i.
        torch::Tensor mask;
        if (n > 1)
            mask = torch::ones({1, n, pos + n}, torch::TensorOptions().dtype(torch::kBool)).tril(pos);
        // Only the last token's distribution is kept: the last layer computes only its row past attention.
        return m.decode(ids.to(m.device), memory, srcMask, mask, pos, &cache, cap, /*lastOnly=*/true,
                        ablated());
    }
};

IncrementalDecoder::IncrementalDecoder(std::shared_ptr<const Model> model, const std::vector<int64_t>& src,
                                       bool capture, int64_t positions, const HeadAblation& ablation,
                                       LayerDone layerDone)
    : impl_(std::make_unique<Impl>()) {
    checkAblation(ablation, model->config());
    impl_->model = std::move(model);
    impl_->capture = capture;
    impl_->ablation = ablation;
    impl_->layerDone = std::move(layerDone);
    impl_->cache.keepInputs = capture;
    const auto& m = parts(*impl_->model);
    impl_->positions = positions > 0 ? positions : m.config.maxLen;
    if (!m.config.hasEncoder())
        return;
    m.checkIds(src, m.config.srcVocabSize, "source", impl_->positions);
    torch::NoGradGuard noGrad;
    const auto t0 = std::chrono::steady_clock::now();
    const auto s = m.toTensor(src); // (1, S)
    impl_->srcMask = nn::sourceMask(s, m.srcPad());
    nn::Capture cap;
    cap.keepInputs = capture;
    cap.layerDone = impl_->layerDone;
    impl_->memory = m.encode(s, impl_->srcMask, capture ? &cap : nullptr, impl_->ablated()); // (1, S, C)
    impl_->encoder = std::move(cap.encoderSelf);
    impl_->encoderInputs = std::move(cap.encoderInputs);
    impl_->encodeMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (!m.config.hasDecoder())
        impl_->src = src;
}

IncrementalDecoder::IncrementalDecoder(std::shared_ptr<const Model> model,
                                       const std::vector<std::vector<int64_t>>& sources, std::size_t rows)
    : impl_(std::make_unique<Impl>()) {
    impl_->model = std::move(model);
    impl_->capture = false;
    impl_->rows = rows;
    const auto& m = parts(*impl_->model);
    impl_->positions = m.config.maxLen;
    if (!m.config.hasEncoder())
        return;
    if (sources.size() != rows)
        throw InputError("a batch of " + std::to_string(rows) + " rows needs as many sources, not " +
                         std::to_string(sources.size()));
    for (const auto& src : sources)
        m.checkIds(src, m.config.srcVocabSize, "source");
    torch::NoGradGuard noGrad;
    // Masked by each row's length rather than by the pad id, which a tokenizer without a pad of its own
    // shares with the token that ends every source.
    const auto src = paddedIds(sources, m.sourceTokenizer().vocab().pad()).to(m.device); // (B, S)
    std::vector<int64_t> lengths;
    for (const auto& s : sources)
        lengths.push_back(static_cast<int64_t>(s.size()));
    const auto keys = torch::arange(src.size(1), torch::TensorOptions().device(m.device)); // (S)
    impl_->srcMask =
        (keys.unsqueeze(0) < torch::tensor(lengths).to(m.device).unsqueeze(1)).unsqueeze(1); // (B, 1, S)
    impl_->memory = m.encode(src, impl_->srcMask, nullptr);                                  // (B, S, C)
}

IncrementalDecoder::~IncrementalDecoder() = default;

IncrementalDecoder::Step IncrementalDecoder::push(int64_t token) {
    return push(std::vector<int64_t>{token});
}

IncrementalDecoder::Step IncrementalDecoder::readOnly(const std::vector<int64_t>& tokens) {
    if (!tokens.empty() || impl_->answered)
        throw InputError(
            "an encoder-only model reads its text and decodes nothing: it takes no target tokens");
    impl_->answered = true;
    Step step;
    const auto t0 = std::chrono::steady_clock::now();
    // The head's distribution at the first mask: what the model would put there.
    std::tie(step.maskRow, step.logProbs) = parts(*impl_->model).maskFill(impl_->src, impl_->memory);
    step.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return step;
}

IncrementalDecoder::Step IncrementalDecoder::push(const std::vector<int64_t>& tokens) {
    const auto& m = parts(*impl_->model);
    if (!m.config.hasDecoder())
        return readOnly(tokens);
    if (impl_->rows != 1)
        throw InputError("push() feeds one row; a batch is fed with pushGreedy()");
    impl_->check(tokens);
    torch::NoGradGuard noGrad;
    const auto t0 = std::chrono::steady_clock::now();
    nn::Capture cap;
    cap.layerDone = impl_->layerDone;
    cap.keepStream = impl_->capture; // the lens at the last position: what the decoding timeline shows
    const auto h = impl_->feed(torch::tensor(tokens, torch::kLong).unsqueeze(0),                 // (1, n)
                               impl_->capture ? &cap : nullptr);                                 // (1, 1, C)
    const auto logp = m.logProbs(h).reshape({-1}).to(torch::kCPU, torch::kFloat32).contiguous(); // (V)
    Step step;
    step.logProbs.assign(logp.data_ptr<float>(), logp.data_ptr<float>() + logp.numel());
    if (!cap.stream.empty()) {
        // Every point but the last in one product with the output layer; the last is the model's own
        // output, whose most likely token logProbs already holds.
        std::vector<torch::Tensor> rows;
        for (std::size_t p = 0; p + 1 < cap.stream.size(); ++p)
            rows.push_back(cap.stream[p].select(1, cap.stream[p].size(1) - 1)); // (1, C)
        if (!rows.empty()) {
            const auto read = m.logits(m.finalNorm(torch::cat(rows).unsqueeze(0), false)); // (1, P − 1, V)
            const auto top = read.argmax(-1).reshape({-1}).to(torch::kCPU).contiguous();   // (P − 1)
            step.lensTop.assign(top.data_ptr<int64_t>(), top.data_ptr<int64_t>() + top.numel());
        }
        step.lensTop.push_back(logp.argmax().item<int64_t>());
        step.lensPoints = std::move(cap.streamPoints);
    }
    step.selfRows = std::move(cap.decoderSelf);
    step.crossRows = std::move(cap.cross);
    step.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return step;
}

std::vector<int64_t> IncrementalDecoder::pushGreedy(const std::vector<std::vector<int64_t>>& tokens) {
    const auto& m = parts(*impl_->model);
    if (tokens.size() != impl_->rows)
        throw InputError("a batch of " + std::to_string(impl_->rows) + " rows is fed " +
                         std::to_string(tokens.size()) + " rows of tokens");
    for (const auto& row : tokens) {
        if (row.size() != tokens.front().size())
            throw InputError("every row of a batch is fed the same number of tokens");
        impl_->check(row);
    }
    torch::NoGradGuard noGrad;
    const auto h = impl_->feed(paddedIds(tokens, 0), nullptr);                           // (B, 1, C)
    const auto next = m.logits(h).argmax(-1).reshape({-1}).to(torch::kCPU).contiguous(); // (B)
    return {next.data_ptr<int64_t>(), next.data_ptr<int64_t>() + next.numel()};
}

std::size_t IncrementalDecoder::rows() const {
    return impl_->rows;
}
void IncrementalDecoder::rewind(int64_t n) {
    impl_->cache.truncate(std::max<int64_t>(0, n));
    for (auto& norms : impl_->selfNorms)
        if (norms.defined() && norms.size(1) > impl_->cache.length())
            norms = norms.slice(1, 0, impl_->cache.length()); // (H, length)
}
int64_t IncrementalDecoder::length() const {
    return impl_->cache.length();
}
const AttentionBlock& IncrementalDecoder::sourceAttention() const {
    return impl_->encoder;
}
bool IncrementalDecoder::generates() const {
    return parts(*impl_->model).config.hasDecoder();
}
double IncrementalDecoder::encodeMs() const {
    return impl_->encodeMs;
}
namespace {

// "layer 7 (this model's encoder has layers 0–5)"-style checks: the message names the bad value and the
// range.
void checkIndex(const char* what, int value, int count, const std::string& of) {
    if (value < 0 || value >= count)
        throw InputError(std::string(what) + " " + std::to_string(value) + " is out of range: " + of +
                         " has " + std::string(what) + "s 0–" + std::to_string(count - 1));
}

} // namespace

InsideRow IncrementalDecoder::inside(const InsideQuery& query) const {
    const auto& m = parts(*impl_->model);
    const auto& c = m.config;
    const auto kind = query.kind;
    if (kind == AttentionKind::Pooling)
        throw InputError(
            "kind pooling is out of range: a Transformer has encoder, decoder and cross attention");
    if (kind != AttentionKind::Decoder && !c.hasEncoder())
        throw InputError(std::string("kind ") + toString(kind) +
                         " is out of range: a decoder-only model has decoder attention only");
    if (kind != AttentionKind::Encoder && !c.hasDecoder())
        throw InputError(std::string("kind ") + toString(kind) +
                         " is out of range: an encoder-only model has encoder attention only");
    if (!impl_->capture || impl_->rows != 1)
        throw InputError("this run keeps no inputs to recompute from (it was started without capture)");
    const bool enc = kind == AttentionKind::Encoder;
    const std::string side = enc ? "the encoder" : "the decoder";
    checkIndex("layer", query.layer, enc ? c.encoderLayers : c.decoderLayers, side);
    checkIndex("head", query.head, c.heads, "each layer");
    const auto rows = enc ? (impl_->memory.defined() ? impl_->memory.size(1) : 0) : impl_->cache.length();
    if (rows == 0)
        throw InputError("nothing has been fed yet: there is no row to open");
    checkIndex("row", query.row, static_cast<int>(rows),
               enc ? "the source" : std::string("the target at this step"));

    torch::NoGradGuard noGrad;
    auto& net = *m.net.ptr();
    const auto l = static_cast<std::size_t>(query.layer);
    InsideInputs in;
    if (kind != AttentionKind::Decoder) { // padding keys of the source are hidden from every query
        const auto mask = impl_->srcMask[0][0].to(torch::kCPU).contiguous(); // (S)
        in.visible.assign(mask.data_ptr<bool>(), mask.data_ptr<bool>() + mask.numel());
    }
    if (enc) {
        auto& layer = *net.encoder->layers[l]->as<nn::EncoderLayerImpl>();
        in.attention = layer.self_attn.get();
        in.norm = layer.sublayer[0]->as<nn::SublayerImpl>()->norm.get();
        in.residual = impl_->encoderInputs[l][0]; // (S, C)
        in.postNorm = c.postNorm;
    } else {
        auto& layer = *net.decoder->layers[l]->as<nn::DecoderLayerImpl>();
        const bool self = kind == AttentionKind::Decoder;
        const auto& cache = self ? impl_->cache.self[l] : impl_->cache.cross[l];
        in.attention = self ? layer.self_attn.get() : layer.src_attn.get();
        in.norm = layer.sublayer[self ? 0 : 1]->as<nn::SublayerImpl>()->norm.get();
        in.postNorm = c.postNorm;
        in.residual = cache.inputs.rows()[0][0]; // (T, C)
        in.keys = cache.keys()[0];               // (H, Tk, hs)
        in.values = cache.values()[0];           // (H, Tk, hs)
        // The decode's own mask: a step's query sees every cached key, a prompt's query those up to itself.
        in.causal = self;
        if (!self)
            in.memory = impl_->memory[0]; // (S, C)
    }
    in.off = impl_->ablation.layerMask(kind, query.layer, c.heads);
    auto out = computeInside(in, query.head, query.row);
    out.query = query;
    return out;
}

namespace {

// ‖W_O^(h) v‖ for the values v (H, Tk, hs) of one attention block: with G_h = W_O^(h)ᵀ W_O^(h) (hs × hs),
// ‖W_O^(h) v‖² = v G_h vᵀ, which costs Tk·hs² a head instead of the Tk·hs·C of the products themselves.
torch::Tensor valueNormsOf(const nn::MultiHeadAttentionImpl& attention, const torch::Tensor& values) {
    const auto gram = attention.outputGram();                       // (H, hs, hs), kept with the model
    const auto v = values.to(torch::kFloat32);                      // (H, Tk, hs)
    return (torch::bmm(v, gram) * v).sum(-1).clamp_min(0.0).sqrt(); // (H, Tk)
}

} // namespace

KeyNorms IncrementalDecoder::valueNorms(AttentionKind kind) const {
    const auto& m = parts(*impl_->model);
    const auto& c = m.config;
    KeyNorms out;
    if (kind == AttentionKind::Pooling || (kind != AttentionKind::Decoder && !c.hasEncoder()) ||
        (kind != AttentionKind::Encoder && !c.hasDecoder()) || impl_->rows != 1)
        return out;
    const bool enc = kind == AttentionKind::Encoder;
    if (enc && impl_->encoderInputs.empty())
        return out; // a run without capture keeps no encoder values
    const auto length = impl_->cache.length();
    if (!enc && length == 0)
        return out;
    torch::NoGradGuard noGrad;
    auto& net = *m.net.ptr();
    const int layers = enc ? c.encoderLayers : c.decoderLayers;
    auto& kept = enc                            ? impl_->encoderNorms
                 : kind == AttentionKind::Cross ? impl_->crossNorms
                                                : impl_->selfNorms;
    kept.resize(static_cast<std::size_t>(layers));
    for (int l = 0; l < layers; ++l) {
        const auto i = static_cast<std::size_t>(l);
        auto& norms = kept[i]; // (H, keys so far)
        if (enc) {
            if (!norms.defined()) {
                auto& layer = *net.encoder->layers[i]->as<nn::EncoderLayerImpl>();
                const auto normed = layer.sublayer[0]->as<nn::SublayerImpl>()->input(impl_->encoderInputs[i]);
                norms = valueNormsOf(*layer.self_attn, layer.self_attn->project(2, normed)[0]); // (H, S)
            }
        } else {
            auto& layer = *net.decoder->layers[i]->as<nn::DecoderLayerImpl>();
            const bool self = kind == AttentionKind::Decoder;
            const auto values =
                (self ? impl_->cache.self[i] : impl_->cache.cross[i]).values()[0]; // (H, Tk, hs)
            const auto have = norms.defined() ? norms.size(1) : 0;
            // Only the keys fed since the last call are new: a rewind cuts the kept norms back with the
            // cache.
            if (have < values.size(1)) {
                const auto added = valueNormsOf(self ? *layer.self_attn : *layer.src_attn,
                                                values.slice(1, have)); // (H, new keys)
                norms = have == 0 ? added : torch::cat({norms, added}, 1);
            }
        }
        const auto host = norms.to(torch::kCPU).contiguous(); // (H, Tk)
        out.layers = l + 1;
        out.heads = static_cast<int>(host.size(0));
        out.keys = static_cast<int>(host.size(1));
        out.data.insert(out.data.end(), host.data_ptr<float>(), host.data_ptr<float>() + host.numel());
    }
    return out;
}

const Model& IncrementalDecoder::model() const {
    return *impl_->model;
}

} // namespace core
