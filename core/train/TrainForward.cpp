#include "core/train/TrainForward.h"

#include <torch/torch.h>

namespace core {

torch::Tensor trainingLogits(ModelParts& parts, const TrainBatch& b, int64_t pad) {
    if (parts.classifier)
        return parts.classifier->forward(b.src, b.lengths).logits; // (B, K)
    if (parts.gru) {
        auto [states, hidden] = parts.gru->encoder->forward(b.src, b.lengths); // (B, S, H), (1, B, H)
        const auto mask = torch::arange(b.src.size(1)).unsqueeze(0) < b.lengths.unsqueeze(1); // (B, S)
        std::vector<torch::Tensor> steps;
        for (int64_t t = 0; t < b.input.size(1); ++t) {
            auto step = parts.gru->decoder->forward(b.input.narrow(1, t, 1), hidden, states, mask);
            hidden = step.hidden;
            steps.push_back(step.logProbs); // (B, V)
        }
        // Log-probabilities: the cross-entropy's own log-softmax leaves them as they are.
        return torch::stack(steps, 1); // (B, T, V)
    }
    auto& net = *parts.net;
    torch::Tensor memory, srcMask;
    if (b.src.defined()) {
        srcMask = nn::sourceMask(b.src, pad);
        memory = net.encode(b.src, srcMask, nullptr); // (B, S, C)
    }
    const auto h = net.decode(b.input, memory, srcMask, nn::targetMask(b.input, pad), 0, nullptr,
                              nullptr); // (B, T, C)
    return net.generator->logits(h);    // (B, T, V)
}

} // namespace core
