#include "core/run/GruDecoder.h"

#include "core/base/Errors.h"
#include "core/model/ModelParts.h"
#include "core/model/nn/HostData.h"
#include "core/run/RecurrentInside.h"

#include <torch/torch.h>

#include <chrono>

// Shapes: S source length, H hidden, n new tokens, V target vocabulary.

namespace core {

struct GruDecoder::Impl {
    std::shared_ptr<const Model> model;
    int64_t positions = 0;
    torch::Tensor states;              // (1, S, H): the encoder's outputs, keys and values of every step
    std::vector<torch::Tensor> hidden; // [length + 1] (1, 1, H): [0] the encoder's last, [i] after token i−1
    AttentionBlock none;               // the encoder attends to nothing
    double encodeMs = 0.0;
};

GruDecoder::GruDecoder(std::shared_ptr<const Model> model, const std::vector<int64_t>& src, int64_t positions)
    : impl_(std::make_unique<Impl>()) {
    impl_->model = std::move(model);
    const auto& m = parts(*impl_->model);
    impl_->positions = positions > 0 ? positions : m.config.maxLen;
    m.checkIds(src, m.config.srcVocabSize, "source", impl_->positions);
    c10::InferenceMode inference; // states are kept, never trained through
    const auto t0 = std::chrono::steady_clock::now();
    torch::Tensor last;
    std::tie(impl_->states, last) = m.encodeRecurrent(m.toTensor(src)); // (1, S, H), (1, 1, H)
    impl_->hidden.push_back(last);
    impl_->encodeMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

GruDecoder::~GruDecoder() = default;

int64_t GruDecoder::length() const {
    return static_cast<int64_t>(impl_->hidden.size()) - 1;
}

StepDecoder::Step GruDecoder::push(const std::vector<int64_t>& tokens) {
    const auto& m = parts(*impl_->model);
    const auto n = static_cast<int64_t>(tokens.size());
    if (n == 0)
        throw InputError("no target tokens to feed");
    if (length() + n > impl_->positions)
        throw InputError("the target would have " + std::to_string(length() + n) +
                         " tokens; this model takes at most " + std::to_string(impl_->positions));
    m.checkIds(tokens, m.config.tgtVocabSize, "target", impl_->positions);
    c10::InferenceMode inference;
    const auto t0 = std::chrono::steady_clock::now();
    const auto s = static_cast<int>(impl_->states.size(1));
    Step step;
    step.crossRows.resize(1, 1, static_cast<int>(n), s);
    // A recurrent decoder has no shortcut for a prefix: it reads it a token at a time.
    torch::Tensor logProbs;
    for (int64_t i = 0; i < n; ++i) {
        const auto input = torch::full({1, 1}, tokens[i], torch::kLong).to(m.device); // (1, 1)
        const auto out =
            m.decodeRecurrent(input, impl_->hidden.back(), impl_->states); // (1, V), (1, 1, H), (1, S)
        impl_->hidden.push_back(out.hidden);
        const auto weights = out.weights.to(torch::kCPU, torch::kFloat32).contiguous();
        std::copy_n(weights.data_ptr<float>(), s, step.crossRows.data.mutableData() + i * s);
        logProbs = out.logProbs[0];
    }
    step.logProbs = nn::hostFloats(logProbs);
    step.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return step;
}

void GruDecoder::rewind(int64_t length) {
    if (length >= 0 && length < this->length())
        impl_->hidden.resize(static_cast<std::size_t>(length) + 1);
}

const AttentionBlock& GruDecoder::sourceAttention() const {
    return impl_->none;
}

double GruDecoder::encodeMs() const {
    return impl_->encodeMs;
}

InsideRow GruDecoder::inside(const InsideQuery& q) const {
    if (q.kind != AttentionKind::Cross || q.layer != 0 || q.head != 0)
        throw InputError("a GRU translator has one layer and one head of attention, over the source: kind "
                         "cross, layer 0, head 0");
    if (q.row < 0 || q.row >= length())
        throw InputError("row " + std::to_string(q.row) + " is out of range: the target has rows 0.." +
                         std::to_string(length() - 1));
    const auto& m = parts(*impl_->model);
    const auto& decoder = *m.gru->decoder;
    torch::NoGradGuard noGrad;
    const auto states = impl_->states[0]; // (S, H)
    const auto h =
        impl_->hidden[static_cast<std::size_t>(q.row)][0][0]; // (H) the state token row was scored with
    const auto hs = states.size(1);
    const auto weight = decoder.attention->weight; // (1, 2H) or (H, 2H): encoder half, then hidden
    const auto onStates = weight.narrow(1, 0, hs), onHidden = weight.narrow(1, hs, hs);
    InsideRow row;
    row.query = q;
    row.heads = 1;
    row.dModel = row.headSize = static_cast<int>(hs);
    row.x = nn::hostMatrix(h.unsqueeze(0)); // (1, H)
    row.memory = row.v = nn::hostMatrix(states);
    if (!decoder.v) {
        // The seed's score a·enc_j + (b·h + c): the hidden state's part is the same for every j.
        row.q = nn::hostMatrix(onStates);                 // (1, H)
        row.k = row.memory;                               // (S, H)
        row.products = nn::hostMatrix(states * onStates); // (S, H)
        row.shift = (onHidden[0].dot(h) + decoder.attention->bias[0]).item<float>();
    } else {
        // Bahdanau's v·tanh(W_e enc_j + W_h h + b): the query is the hidden state's projection.
        const auto query = onHidden.matmul(h) + decoder.attention->bias; // (H)
        const auto keys = states.matmul(onStates.t());                   // (S, H)
        row.q = nn::hostMatrix(query.unsqueeze(0));                      // (1, H)
        row.k = nn::hostMatrix(keys);
        row.products = nn::hostMatrix(decoder.v->weight[0] * torch::tanh(keys + query)); // (S, H)
    }
    finishRecurrentRow(row);
    return row;
}

} // namespace core
