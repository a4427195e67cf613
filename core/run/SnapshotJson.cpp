#include "core/run/SnapshotJson.h"

#include "core/base/TextFormat.h"

#include <nlohmann/json.hpp>

#include <cmath>

namespace core {

namespace {

void writeFloat(std::ostream& out, float v) {
    if (!std::isfinite(v)) {
        out << "null"; // JSON has no infinities
        return;
    }
    out << formatFloat(v);
}

void writeFloats(std::ostream& out, const float* p, int n) {
    out << '[';
    for (int i = 0; i < n; ++i) {
        if (i)
            out << ',';
        writeFloat(out, p[i]);
    }
    out << ']';
}

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

std::string tokenTexts(const std::vector<Token>& tokens) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& t : tokens)
        j.push_back(t.text);
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string str(const std::string& s) {
    return nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

} // namespace

void writeSnapshotJson(std::ostream& out, const AttentionSnapshot& snap, const std::string& srcText,
                       const std::string& tgtText, const std::string& extraFields) {
    const ClassicLocale classic(out);
    out << "{\n\"model\": " << str(snap.modelName) << ",\n\"src_text\": " << str(srcText)
        << ",\n\"src_tokens\": " << tokenTexts(snap.srcTokens) << ",\n\"tgt_text\": " << str(tgtText)
        << ",\n\"tgt_tokens\": " << tokenTexts(snap.tgtTokens) << ",\n\"attention\": {";
    bool first = true;
    for (auto kind : kAttentionKinds) {
        const auto& b = snap.block(kind);
        if (b.empty())
            continue;
        out << (first ? "\n" : ",\n") << '"' << toString(kind) << "\": ";
        writeBlock(out, b);
        first = false;
    }
    out << "},\n";
    if (!extraFields.empty())
        out << extraFields << ",\n";
    out << "\"next_token_logprobs\": ";
    writeFloats(out, snap.nextTokenLogProbs.data(), static_cast<int>(snap.nextTokenLogProbs.size()));
    out << "\n}\n";
}

} // namespace core
