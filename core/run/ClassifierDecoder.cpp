#include "core/run/ClassifierDecoder.h"

#include "core/base/Errors.h"
#include "core/model/ModelParts.h"
#include "core/model/nn/HostData.h"
#include "core/run/RecurrentInside.h"

#include <torch/torch.h>

#include <chrono>
#include <limits>

// Shapes: S source length, H hidden per direction, K classes, V target side (the specials and the classes).

namespace core {

ClassifierDecoder::ClassifierDecoder(std::shared_ptr<const Model> model, const std::vector<int64_t>& src,
                                     int64_t positions)
    : model_(std::move(model)) {
    const auto& m = parts(*model_);
    m.checkIds(src, m.config.srcVocabSize, "source", positions);
    c10::InferenceMode inference; // the results are copied out: no autograd bookkeeping needed
    const auto t0 = std::chrono::steady_clock::now();
    const auto out = m.classify(m.toTensor(src)); // (1, K), (1, S), (1, S), (1, S, 2H)
    const auto classes = nn::hostFloats(torch::log_softmax(out.logits[0], 0)); // (K)
    // Each token's share of each logit: α_j · (W h_j), since fc is linear in the pooled context.
    const auto& fc = m.classifier->fc;
    const auto shares = out.weights[0].unsqueeze(0) * fc->weight.matmul(out.states[0].t()); // (K, S)
    ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const auto s = static_cast<int>(src.size());
    pooling_.resize(1, 1, 1, s);
    pooling_.data = nn::hostFloats(out.weights[0]);
    states_ = nn::hostMatrix(out.states[0]);
    detail_.classes = m.config.classes;
    detail_.logits = nn::hostFloats(out.logits[0]);
    detail_.probabilities = nn::hostFloats(torch::softmax(out.logits[0], 0));
    detail_.bias = nn::hostFloats(fc->bias);
    detail_.scores = nn::hostFloats(out.scores[0]);
    detail_.weights = pooling_.data;
    detail_.padScore = m.classifier->attention->bias.item<float>();
    detail_.states = states_;
    detail_.contributions = nn::hostMatrix(shares);
    const auto& vocab = m.tgtTokenizer->vocab();
    logProbs_.assign(vocab.size(), -std::numeric_limits<float>::infinity());
    for (std::size_t k = 0; k < classes.size(); ++k)
        logProbs_[vocab.find(m.config.classes[k])] = classes[k];
}

StepDecoder::Step ClassifierDecoder::push(const std::vector<int64_t>& tokens) {
    const auto bos = model_->targetTokenizer().vocab().bos();
    if (length_ > 0 || tokens.size() != 1 || tokens[0] != bos)
        throw InputError("a classifier answers once and decodes nothing: it takes no target tokens");
    length_ = 1;
    Step step;
    step.logProbs = logProbs_;
    return step;
}

void ClassifierDecoder::rewind(int64_t length) {
    length_ = std::min(length_, length);
}

InsideRow ClassifierDecoder::inside(const InsideQuery& q) const {
    if (q.kind != AttentionKind::Pooling || q.layer != 0 || q.head != 0 || q.row != 0)
        throw InputError("a classifier has one row of attention: kind pooling, layer 0, head 0, row 0");
    const auto& attention = parts(*model_).classifier->attention;
    InsideRow row;
    row.query = q;
    row.heads = 1;
    row.dModel = row.headSize = states_.cols;
    // The learned query: scores_j = w · state_j + b, and the states are both keys and values.
    row.q = nn::hostMatrix(attention->weight.detach()); // (1, 2H)
    row.shift = attention->bias.detach().item<float>();
    row.k = row.v = states_;
    row.products = Matrix(states_.rows, states_.cols);
    for (int j = 0; j < states_.rows; ++j)
        for (int d = 0; d < states_.cols; ++d)
            row.products.data[static_cast<std::size_t>(j) * states_.cols + d] =
                row.q.at(0, d) * states_.at(j, d);
    finishRecurrentRow(row);
    return row;
}

} // namespace core
