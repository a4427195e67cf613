#include "core/run/SnapshotJson.h"

#include "core/base/TextFormat.h"
#include "core/run/JsonOut.h"

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

std::string intList(const std::vector<int>& v) {
    std::string s = "[";
    for (std::size_t i = 0; i < v.size(); ++i)
        s += (i ? "," : "") + std::to_string(v[i]);
    return s + "]";
}

} // namespace

void writeSnapshotJson(std::ostream& out, const AttentionSnapshot& snap, const std::string& srcText,
                       const std::string& tgtText, const std::string& extraFields) {
    const ClassicLocale classic(out);
    out << "{\n\"model\": " << quoted(snap.modelName) << ",\n\"src_text\": " << quoted(srcText)
        << ",\n\"src_tokens\": " << tokenTexts(snap.srcTokens) << ",\n\"tgt_text\": " << quoted(tgtText)
        << ",\n\"tgt_tokens\": " << tokenTexts(snap.tgtTokens) << ",\n\"text_tokens\": " << snap.textTokens
        << ",\n\"read_tokens\": " << snap.readTokens << ",\n\"max_len\": " << snap.maxLen
        << ",\n\"forced\": " << intList(snap.forced) << ",\n\"attention\": {";
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
