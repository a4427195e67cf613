#include "core/run/SnapshotCsv.h"

#include "core/base/Errors.h"
#include "core/base/TextFormat.h"

#include <string>
#include <vector>

namespace core {

namespace {

// RFC 4180: quote when the field holds a comma, a quote or a line break; double the quotes inside.
std::string field(const std::string& s) {
    if (s.find_first_of(",\"\r\n") == std::string::npos && !s.empty() && s.front() != ' ' && s.back() != ' ')
        return s;
    std::string q = "\"";
    for (char c : s) {
        if (c == '"')
            q += '"';
        q += c;
    }
    return q + '"';
}

void checkBlock(const AttentionBlock& b, AttentionKind kind, int layer, int head) {
    if (b.empty())
        throw InputError(std::string("this snapshot has no ") + toString(kind) + " attention");
    if (layer < 0 || layer >= b.layers || head < kMeanHead || head >= b.heads)
        throw InputError("no layer " + std::to_string(layer) + ", head " + std::to_string(head) + " in " +
                         toString(kind) + " attention of " + std::to_string(b.layers) + " layers × " +
                         std::to_string(b.heads) + " heads");
}

// Token texts repeat ("l" twice in "hello"); a column name is "<index>:<token>" so every name is unique.
std::string label(std::size_t index, const std::string& text) {
    return field(std::to_string(index) + ":" + text);
}

void keyHeader(std::ostream& out, const AttentionSnapshot& snap, AttentionKind kind) {
    const auto& keys = keyTokens(snap, kind);
    for (std::size_t i = 0; i < keys.size(); ++i)
        out << ',' << label(i, keys[i].text);
    out << "\r\n";
}

} // namespace

void writeHeadCsv(std::ostream& out, const AttentionSnapshot& snap, AttentionKind kind, int layer, int head) {
    const ClassicLocale classic(out);
    const auto& b = snap.block(kind);
    checkBlock(b, kind, layer, head);
    const auto& queries = queryTokens(snap, kind);
    out << "query";
    keyHeader(out, snap, kind);
    const auto mean = head == kMeanHead ? meanOverHeads(b, layer) : std::vector<float>{};
    std::vector<float> scratch;
    for (int q = 0; q < b.queries; ++q) {
        const float* row = head != kMeanHead ? b.row(layer, head, q, scratch)
                                             : mean.data() + std::size_t(q) * std::size_t(b.keys);
        out << label(std::size_t(q),
                     q < static_cast<int>(queries.size()) ? queries[std::size_t(q)].text : "");
        for (int k = 0; k < b.keys; ++k)
            out << ',' << formatFloat(row[k]);
        out << "\r\n";
    }
}

void writeKindCsv(std::ostream& out, const AttentionSnapshot& snap, AttentionKind kind) {
    const ClassicLocale classic(out);
    const auto& b = snap.block(kind);
    checkBlock(b, kind, 0, 0);
    const auto& queries = queryTokens(snap, kind);
    out << "layer,head,query_index,query_token";
    keyHeader(out, snap, kind);
    std::vector<float> scratch;
    for (int l = 0; l < b.layers; ++l)
        for (int h = 0; h < b.heads; ++h)
            for (int q = 0; q < b.queries; ++q) {
                out << l << ',' << h << ',' << q << ','
                    << field(q < static_cast<int>(queries.size()) ? queries[std::size_t(q)].text : "");
                const float* r = b.row(l, h, q, scratch);
                for (int k = 0; k < b.keys; ++k)
                    out << ',' << formatFloat(r[k]);
                out << "\r\n";
            }
}

} // namespace core
