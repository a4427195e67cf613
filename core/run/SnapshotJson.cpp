#include "core/run/SnapshotJson.h"

#include "core/base/TextFormat.h"
#include "core/run/JsonOut.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <numeric>
#include <sstream>

namespace core {

namespace {

using json::quoted;
using json::tokenTexts;
using json::writeFloats;

void writeBlock(std::ostream& out, const AttentionBlock& b) {
    std::vector<float> scratch;
    out << '[';
    for (int l = 0; l < b.layers; ++l) {
        out << (l ? ",\n  [" : "\n  [");
        for (int h = 0; h < b.heads; ++h) {
            out << (h ? ",\n   [" : "\n   [");
            for (int q = 0; q < b.queries; ++q) {
                if (q)
                    out << ',';
                writeFloats(out, b.row(l, h, q, scratch), b.keys);
            }
            out << ']';
        }
        out << ']';
    }
    out << ']';
}

// "value_norms": {"<kind>": [L][H][K]} for the kinds that have them.
void writeNorms(std::ostream& out, const AttentionSnapshot& snap) {
    bool first = true;
    for (auto kind : kAttentionKinds) {
        const auto& n = snap.valueNorms(kind);
        if (n.empty())
            continue;
        out << (first ? "\"value_norms\": {\n\"" : ",\n\"") << toString(kind) << "\": [";
        for (int l = 0; l < n.layers; ++l) {
            out << (l ? ",\n  [" : "\n  [");
            for (int h = 0; h < n.heads; ++h) {
                if (h)
                    out << ',';
                writeFloats(out, n.row(l, h), n.keys);
            }
            out << ']';
        }
        out << ']';
        first = false;
    }
    if (!first)
        out << "},\n";
}

std::string intList(const std::vector<int>& v) {
    std::string s = "[";
    for (std::size_t i = 0; i < v.size(); ++i)
        s += (i ? "," : "") + std::to_string(v[i]);
    return s + "]";
}

std::string stringList(const std::vector<std::string>& v) {
    std::string s = "[";
    for (std::size_t i = 0; i < v.size(); ++i)
        s += (i ? "," : "") + quoted(v[i]);
    return s + "]";
}

// A classifier's answer: the class, each class's probability and logit, and per source token the score
// before softmax, the weight, and its share of each logit (those shares plus the bias give the logit).
void writePooled(std::ostream& out, const PoolingDetail& d) {
    const int k = static_cast<int>(d.classes.size());
    const int pred = d.predicted();
    out << "\"classification\": {\"class\": " << quoted(d.classes[pred])
        << ", \"probability\": " << d.probabilities[pred] << ", \"classes\": [";
    for (int c = 0; c < k; ++c)
        out << (c ? ", " : "") << "{\"name\": " << quoted(d.classes[c])
            << ", \"probability\": " << d.probabilities[c] << ", \"logit\": " << d.logits[c]
            << ", \"bias\": " << d.bias[c] << '}';
    out << "],\n  \"pad_score\": " << d.padScore << ",\n  \"scores\": ";
    writeFloats(out, d.scores.data(), static_cast<int>(d.scores.size()));
    out << ",\n  \"weights\": ";
    writeFloats(out, d.weights.data(), static_cast<int>(d.weights.size()));
    out << ",\n  \"contributions\": [";
    for (int c = 0; c < k; ++c) {
        out << (c ? ",\n    " : "\n    ");
        writeFloats(out, d.contributions.row(c), d.contributions.cols);
    }
    out << "]},\n";
}

} // namespace

std::string topTokensJson(const std::vector<float>& logProbs, const Vocabulary& vocab, int count) {
    std::vector<int64_t> ids(logProbs.size());
    std::iota(ids.begin(), ids.end(), int64_t{0});
    const auto n = std::min(ids.size(), static_cast<std::size_t>(std::max(count, 0)));
    std::partial_sort(ids.begin(), ids.begin() + std::ptrdiff_t(n), ids.end(), [&](int64_t a, int64_t b) {
        return logProbs[std::size_t(a)] > logProbs[std::size_t(b)];
    });
    std::ostringstream out;
    const ClassicLocale classic(out);
    out << '[';
    for (std::size_t i = 0; i < n; ++i)
        out << (i ? ", " : "") << "{\"token\": " << quoted(vocab.token(ids[i])) << ", \"id\": " << ids[i]
            << ", \"probability\": " << std::exp(double(logProbs[std::size_t(ids[i])])) << '}';
    out << ']';
    return out.str();
}

std::string runFields(const RunInfo& info, const Vocabulary& vocab) {
    std::ostringstream out;
    const ClassicLocale classic(out);
    const auto& s = info.sampling;
    // Absolute: a relative folder means nothing to whoever reads the file elsewhere.
    const std::string dir = info.modelDir.empty()
                                ? std::string()
                                : std::filesystem::absolute(info.modelDir).lexically_normal().string();
    out << "\"run\": {\"model_dir\": " << quoted(dir) << ", \"weights_sha256\": "
        << (info.weightsSha256.empty() ? std::string("null") : quoted(info.weightsSha256))
        << ", \"decode\": {\"mode\": " << (s.greedy ? "\"greedy\"" : "\"sampled\"")
        << ", \"temperature\": " << s.temperature << ", \"top_k\": " << s.topK << ", \"top_p\": " << s.topP
        << ", \"seed\": " << s.seed << "}, \"step\": " << info.step << "},\n\"next_token_vocab\": [";
    for (int64_t id = 0; id < vocab.size(); ++id)
        out << (id ? "," : "") << quoted(vocab.token(id));
    out << "]";
    return out.str();
}

std::string layerMeanField(AttentionKind kind, const AttentionBlock& block) {
    AttentionBlock means;
    means.resize(block.layers, 1, block.queries, block.keys);
    for (int l = 0; l < block.layers; ++l) {
        const auto m = meanOverHeads(block, l);
        std::copy(m.begin(), m.end(),
                  means.data.mutableData() + std::ptrdiff_t(l) * std::ptrdiff_t(m.size()));
    }
    std::ostringstream out;
    const ClassicLocale classic(out);
    out << "\"layer_mean\": {\"" << toString(kind) << "\": [";
    std::vector<float> scratch;
    for (int l = 0; l < means.layers; ++l) {
        out << (l ? ",\n  [" : "\n  [");
        for (int q = 0; q < means.queries; ++q) {
            if (q)
                out << ',';
            writeFloats(out, means.row(l, 0, q, scratch), means.keys);
        }
        out << ']';
    }
    out << "]}";
    return out.str();
}

void writeSnapshotJson(std::ostream& out, const AttentionSnapshot& snap, const std::string& srcText,
                       const std::string& tgtText, const std::string& extraFields) {
    const ClassicLocale classic(out);
    out << "{\n\"model\": " << quoted(snap.modelName) << ",\n\"src_text\": " << quoted(srcText)
        << ",\n\"src_tokens\": " << tokenTexts(snap.srcTokens) << ",\n\"tgt_text\": " << quoted(tgtText)
        << ",\n\"tgt_tokens\": " << tokenTexts(snap.tgtTokens) << ",\n\"text_tokens\": " << snap.textTokens
        << ",\n\"read_tokens\": " << snap.readTokens << ",\n\"max_len\": " << snap.maxLen
        << ",\n\"forced\": " << intList(snap.forced);
    if (!snap.commitment.empty()) // the decoding timeline: each produced token's commitment point
        out << ",\n\"commitment\": " << intList(snap.commitment)
            << ",\n\"stream_points\": " << stringList(snap.streamPoints);
    if (snap.kvHeads > 0) // grouped-query attention: which key/value head each decoder head reads
        out << ",\n\"kv_heads\": " << snap.kvHeads;
    if (!snap.decodes) // a classifier or an encoder-only model: nothing to step
        out << ",\n\"decodes\": false";
    if (snap.maskRow >= 0) // next_token_logprobs is the masked-LM head's at this source row
        out << ",\n\"mask_row\": " << snap.maskRow;
    out << ",\n\"attention\": {";
    bool first = true;
    for (auto kind : kAttentionKinds) {
        const auto& b = snap.block(kind);
        if (b.empty())
            continue;
        out << (first ? "\n" : ",\n") << '"' << toString(kind) << "\": ";
        writeBlock(out, b);
        first = false;
    }
    out << "},\n\"ablated\": " << quoted(snap.ablation) << ",\n";
    writeNorms(out, snap);
    first = true;
    for (auto kind : kAttentionKinds) {
        const auto& b = snap.weighted(kind);
        if (b.empty())
            continue;
        out << (first ? "\"value_weighted\": {\n" : ",\n") << '"' << toString(kind) << "\": ";
        writeBlock(out, b);
        first = false;
    }
    if (!first)
        out << "},\n";
    if (!snap.pooled.empty())
        writePooled(out, snap.pooled);
    if (!extraFields.empty())
        out << extraFields << ",\n";
    out << "\"next_token_logprobs\": ";
    writeFloats(out, snap.nextTokenLogProbs.data(), static_cast<int>(snap.nextTokenLogProbs.size()));
    out << "\n}\n";
}

} // namespace core
