// Fuzz target: the text path, tokenize then analyse, on any bytes.
//
// The first byte picks a built-in model: even, demo-random (encoder-decoder, character vocabulary, unknown
// characters marked); odd, tiny-lm (decoder-only, GPT-2's byte-level BPE). The rest is the text, as typed
// into the window or given to `dump --src`: it is tokenized, analysed by a Session, and every head's
// statistics are computed from the snapshot, as the views do. Checked: byte-level BPE gives the text back
// from its ids; a text that is empty or too long is refused with an InputError and nothing else; every
// attention row of the snapshot is a probability distribution.
//
//   build-fuzz/tests/fuzz/fuzz_text tests/fuzz/corpus/fuzz_text   (scripts/fuzz.sh runs it)

#include "core/analysis/AttentionStats.h"
#include "core/base/Errors.h"
#include "core/base/Runtime.h"
#include "core/model/AttentionBlock.h"
#include "core/model/Model.h"
#include "core/run/Session.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

void checkRows(const core::AttentionBlock& block) {
    std::vector<float> scratch;
    for (int l = 0; l < block.layers; ++l)
        for (int h = 0; h < block.heads; ++h) {
            for (int q = 0; q < block.queries; ++q) {
                const float* row = block.row(l, h, q, scratch);
                double sum = 0.0;
                for (int k = 0; k < block.keys; ++k) {
                    if (!(row[k] >= 0.0f && row[k] <= 1.0f))
                        std::abort();
                    sum += row[k];
                }
                if (std::abs(sum - 1.0) > 1e-3)
                    std::abort();
            }
            (void)core::headStats(block, l, h);
        }
    if (block.layers > 0)
        (void)core::headStats(block, 0, core::kMeanHead);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const auto demo =
        core::Model::load(ATTNSCOPE_SOURCE_DIR "/resources/models/demo-random", core::DeviceChoice::Cpu);
    static const auto lm =
        core::Model::load(ATTNSCOPE_SOURCE_DIR "/resources/models/tiny-lm", core::DeviceChoice::Cpu);
    static const bool oneThread = [] {
        core::configureThreads(1); // loading asked for every core; the fuzzer runs on one
        return true;
    }();
    if (size == 0 || !oneThread)
        return 0;
    const auto& model = (data[0] & 1) ? lm : demo;
    const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);

    const auto tokens = model->sourceTokens(text);
    if (model == lm) {
        std::vector<int64_t> ids;
        for (const auto& t : tokens)
            if (!t.special)
                ids.push_back(t.id);
        if (model->targetTokenizer().detokenize(ids) != text)
            std::abort();
    }
    core::Session session(model);
    try {
        session.analyze(text);
    } catch (const core::InputError&) {
        return 0;
    }
    const auto snap = session.snapshot();
    for (const auto kind :
         {core::AttentionKind::Encoder, core::AttentionKind::Decoder, core::AttentionKind::Cross})
        checkRows(snap.block(kind));
    for (const float lp : snap.nextTokenLogProbs)
        if (!(lp <= 1e-5f))
            std::abort();
    return 0;
}
