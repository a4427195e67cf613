#include "app/Args.h"
#include "app/Commands.h"
#include "app/RunCommand.h"
#include "app/SessionOptions.h"

#include "core/run/InsideJson.h"

#include <charconv>
#include <sstream>

namespace {

const std::string kExplainHelp =
    std::string(R"(usage: attnscope explain --model DIR (--src TEXT | --src-ids 1,2,3)
                         [--tgt TEXT | --tgt-ids 1,2,3 | --greedy N]
                         --kind encoder|decoder|cross --layer L --head H [--row I] [--out FILE.json]
                         [--temperature T] [--top-k K] [--top-p P] [--seed S] [--candidates N]

Opens the computation behind one row of attention weights, Attention(Q, K, V) = softmax(QKᵀ/√d_k) V, and
writes every stage as JSON (to stdout without --out): for query row I of head H in layer L,
  x (tokens × d_model, after the sublayer's norm), q, k, v (tokens × d_k; the decoder's cached keys and
  values), products (q_i ⊙ k_j), scores, scaled (÷ √d_k), mask (0, or null for −∞), weights (softmax),
  captured_weights (the row the heatmap shows), weighted_values, z (this head's output), concat (all
  heads; zeros where --ablate switched a head off), heads_off (this layer's heads switched off), attn_out
  (after W_O), residual and output (residual + attn_out); heads, kv_heads and kv_head (with grouped-query
  attention, the key/value head this head shares with the others of its group); memory (the encoder output) for
  cross; and "sampling": how the next token is drawn (logits ÷ temperature, top-k, top-p, the
  renormalised distribution and the token drawn with the seed).

)") +
    kSessionOptionsHelp +
    R"(  --kind K         encoder (self-attention over the source), decoder (masked self-attention), cross, or
                   pooling (an attention-pooling classifier's one row)
  --layer L        layer index from 0
  --head H         head index from 0
  --row I          query row from 0; default the last (for decoder and cross, the current decode step)
  --out FILE       write there (atomically) instead of stdout
  --temperature T, --top-k K, --top-p P, --seed S
                   sampling settings of the pipeline shown (any of the first three turns sampling on;
                   without them the pipeline is greedy)
  --candidates N   candidate tokens listed in "sampling" (default 20)
Exit status: 0 on success, 2 on bad arguments or input (naming the bad value and the valid range).
)";

core::AttentionKind parseKind(const std::string& s) {
    if (const auto kind = core::attentionKindNamed(s))
        return *kind;
    throw UsageError("--kind \"" + s + "\" is not one of encoder, decoder, cross, pooling");
}

double parseDouble(const Args& a, const char* option, double fallback) {
    if (!a.has(option))
        return fallback;
    const auto text = a.get(option);
    double v = 0.0;
    const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
    if (r.ec != std::errc() || r.ptr != text.data() + text.size())
        throw UsageError(std::string(option) + " expects a number, not \"" + text + "\"");
    return v;
}

int parseIndex(const Args& a, const char* option) {
    if (!a.has(option))
        throw UsageError(std::string(option) + " is required");
    const auto v = a.getInt(option, 0);
    if (v < INT32_MIN || v > INT32_MAX)
        throw UsageError(std::string(option) + " " + a.get(option) + " is out of range");
    return static_cast<int>(v);
}

} // namespace

int runExplain(const std::vector<std::string>& argv) {
    CommandOptions options{{std::begin(kSessionOptions), std::end(kSessionOptions)},
                           {std::begin(kSessionFlags), std::end(kSessionFlags)}};
    options.valued.insert({"--kind", "--layer", "--head", "--row", "--out", "--temperature", "--top-k",
                           "--top-p", "--seed", "--candidates"});
    return runCommand("explain", kExplainHelp.c_str(), options, argv, [&](const Args& a) {
        if (!a.has("--kind"))
            throw UsageError("--kind encoder|decoder|cross|pooling is required");
        core::InsideQuery query;
        query.kind = parseKind(a.get("--kind"));
        query.layer = parseIndex(a, "--layer");
        query.head = parseIndex(a, "--head");
        const auto candidates = a.getInt("--candidates", 20);
        if (candidates < 0 || candidates > 1000000)
            throw UsageError("--candidates expects N in 0–1000000");
        core::SamplingSettings sampling;
        sampling.greedy = !(a.has("--temperature") || a.has("--top-k") || a.has("--top-p"));
        sampling.temperature = parseDouble(a, "--temperature", 1.0);
        sampling.topP = parseDouble(a, "--top-p", 1.0);
        const auto topK = a.getInt("--top-k", 0);
        if (topK < 0 || topK > INT32_MAX)
            throw UsageError("--top-k expects K >= 0 (0 keeps every token)");
        sampling.topK = static_cast<int>(topK);
        // Checked before the model is loaded and the text decoded, naming the value.
        if (!(sampling.temperature > 0.0))
            throw UsageError("--temperature expects T > 0, not " + a.get("--temperature"));
        if (!(sampling.topP > 0.0 && sampling.topP <= 1.0))
            throw UsageError("--top-p expects 0 < P <= 1, not " + a.get("--top-p"));
        const auto seed = a.getInt("--seed", 0);
        if (seed < 0)
            throw UsageError("--seed expects S >= 0");
        sampling.seed = static_cast<uint64_t>(seed);

        const auto started = startSession(a);
        auto& session = *started.session;
        session.setSampling(sampling);
        if (a.has("--row")) {
            query.row = parseIndex(a, "--row");
        } else {
            query.row = session.queryRows(query.kind) - 1;
        }
        const auto row = session.inside(query);
        // An encoder-only model decodes nothing: it has no draw to explain.
        const auto pipeline = started.model->config().hasDecoder()
                                  ? session.samplingPipeline(static_cast<int>(candidates))
                                  : core::SamplingPipeline{};
        std::ostringstream json;
        core::writeInsideJson(json, started.model->config().name, row, pipeline);
        writeOutput(a, json.str());
        return 0;
    });
}
