#include "core/analysis/Perplexity.h"

#include "core/base/Errors.h"
#include "core/model/ModelParts.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>

namespace core {

namespace {

struct Window {
    int64_t position = 0;  // stream position of the window's first token (after <bos>)
    int64_t countFrom = 0; // first stream position this window is the first to predict
};

// Each window starts at the last document that begins inside the previous one's span (so no document
// loses its beginning as context), or, for a document longer than a window, where the last one ended.
std::vector<Window> plan(const TextCorpus& corpus, int64_t length) {
    std::vector<Window> windows;
    const auto& starts = corpus.starts();
    const auto n = static_cast<int64_t>(corpus.stream().size());
    int64_t pos = 0, counted = 0;
    std::size_t doc = 0;
    while (counted < n) {
        windows.push_back({pos, counted});
        const int64_t end = std::min(pos + length, n);
        counted = end;
        auto next = std::upper_bound(starts.begin() + static_cast<std::ptrdiff_t>(doc), starts.end(), end);
        const auto last = static_cast<std::size_t>(next - starts.begin()) - 1; // last start <= end
        if (last > doc && starts[last] > pos) {
            doc = last;
            pos = starts[last];
        } else {
            pos = end; // inside one long document
        }
    }
    return windows;
}

} // namespace

PerplexityResult perplexity(const Model& model, const TextCorpus& corpus, int64_t maxWindows,
                            const std::function<void(std::size_t done, std::size_t total)>& progress) {
    const auto& m = parts(model);
    if (m.config.architecture != Architecture::DecoderOnly)
        throw InputError("perplexity is measured on decoder-only (language) models");
    torch::NoGradGuard noGrad;
    const int64_t length = m.config.maxLen; // predicted tokens per window, as in training
    auto windows = plan(corpus, length);
    if (maxWindows > 0 && static_cast<int64_t>(windows.size()) > maxWindows) {
        // Spread over the whole text: its sources follow one another, and the first windows would be one.
        std::vector<Window> picked;
        const auto n = static_cast<int64_t>(windows.size());
        for (int64_t i = 0; i < maxWindows; ++i)
            picked.push_back(windows[static_cast<std::size_t>(i * n / maxWindows)]);
        windows = std::move(picked);
    }
    const auto& vocab = m.tgtTokenizer->vocab();
    std::vector<int64_t> tokenBytes(static_cast<std::size_t>(vocab.size()),
                                    1); // specials: the newline of <eos>
    for (int64_t id = 0; id < vocab.size(); ++id)
        if (!vocab.isSpecial(id))
            tokenBytes[static_cast<std::size_t>(id)] = static_cast<int64_t>(vocab.token(id).size());

    PerplexityResult r;
    double nll = 0.0;
    constexpr std::size_t kBatch = 8;
    for (std::size_t w0 = 0; w0 < windows.size(); w0 += kBatch) {
        const auto count = std::min(kBatch, windows.size() - w0);
        std::vector<std::vector<int64_t>> rows;
        for (std::size_t i = 0; i < count; ++i)
            rows.push_back(corpus.windowAt(windows[w0 + i].position, length));
        const auto ids = paddedIds(rows, m.pad()).to(m.device); // (B, L+1)
        const auto input = ids.narrow(1, 0, length);            // (B, L)
        const auto h = m.decode(input, {}, {}, nn::targetMask(input, m.pad()), 0, nullptr, nullptr);
        const auto logp = torch::log_softmax(m.logits(h), -1); // (B, L, V)
        const auto labels = ids.narrow(1, 1, length);          // (B, L)
        const auto picked =
            logp.gather(2, labels.unsqueeze(2)).squeeze(2).to(torch::kCPU).contiguous(); // (B, L)
        const auto lab = labels.to(torch::kCPU).contiguous();
        const auto* lp = picked.data_ptr<float>();
        const auto* lb = lab.data_ptr<int64_t>();
        const auto n = static_cast<int64_t>(corpus.stream().size());
        for (std::size_t i = 0; i < count; ++i) {
            const auto& w = windows[w0 + i];
            for (int64_t j = 0; j < length; ++j) {
                const auto pos = w.position + j;
                if (pos < w.countFrom || pos >= n)
                    continue;
                const auto k = static_cast<int64_t>(i) * length + j;
                nll -= lp[k];
                r.tokens += 1;
                r.bytes += tokenBytes[static_cast<std::size_t>(lb[k])];
            }
        }
        if (progress)
            progress(w0 + count, windows.size());
    }
    if (r.tokens > 0) {
        r.nllPerToken = nll / static_cast<double>(r.tokens);
        r.perplexity = std::exp(r.nllPerToken);
        r.bitsPerByte = nll / std::log(2.0) / static_cast<double>(std::max<int64_t>(r.bytes, 1));
    }
    return r;
}

} // namespace core
