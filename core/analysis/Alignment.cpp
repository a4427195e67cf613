#include "core/analysis/Alignment.h"

#include "core/base/Errors.h"
#include "core/run/Session.h"

#include <algorithm>
#include <map>

namespace core {

namespace {

int argmaxOf(const Matrix& m, int r) {
    const float* row = m.row(r);
    return static_cast<int>(std::max_element(row, row + m.cols) - row);
}

} // namespace

Alignment alignmentOf(std::shared_ptr<const Model> model, const std::string& text, int layer, int head,
                      int maxTokens) {
    const auto& c = model->config();
    if (!c.twoSided() || c.family == Family::AttentionClassifier)
        throw InputError("'" + c.name + "' has no attention over a source to align with (" + c.shape() + ")");
    Session session(model);
    session.analyze(text);
    const int limit = maxTokens > 0 ? maxTokens : c.maxLen;
    while (!session.finished() && session.decodedCount() < limit)
        session.step();
    const auto snap = session.snapshot();
    const auto& cross = snap.cross;
    if (layer < -1 || layer >= cross.layers || head < -1 || head >= cross.heads)
        throw InputError("'" + c.name + "' has " + std::to_string(cross.layers) + " layer(s) of " +
                         std::to_string(cross.heads) + " head(s) of cross-attention; layer " +
                         std::to_string(layer) + ", head " + std::to_string(head) + " is not one of them");
    Alignment a;
    a.model = c.name;
    a.shape = c.shape();
    a.translation = session.decodedText();
    a.source = snap.srcTokens;
    a.layers = cross.layers;
    a.heads = cross.heads;
    a.layer = layer;
    a.head = head;
    // Row q was computed feeding target token q and produced token q + 1: a row per output. A run that
    // stopped at the limit leaves its last row's output unproduced.
    const int outputs = static_cast<int>(snap.tgtTokens.size()) - 1;
    const int s = cross.keys;
    a.outputs.assign(snap.tgtTokens.begin() + 1, snap.tgtTokens.end());
    a.weights = Matrix(outputs, s);
    const int l0 = layer < 0 ? 0 : layer, l1 = layer < 0 ? cross.layers : layer + 1;
    const int h0 = head < 0 ? 0 : head, h1 = head < 0 ? cross.heads : head + 1;
    const float n = static_cast<float>((l1 - l0) * (h1 - h0));
    std::vector<float> scratch;
    for (int q = 0; q < outputs; ++q) {
        float* out = a.weights.data.data() + static_cast<std::size_t>(q) * s;
        for (int l = l0; l < l1; ++l)
            for (int h = h0; h < h1; ++h) {
                const float* row = cross.row(l, h, q, scratch);
                for (int j = 0; j < s; ++j)
                    out[j] += row[j] / n;
            }
    }
    return a;
}

double argmaxAgreement(const Alignment& a, const Alignment& b) {
    const auto texts = [](const std::vector<Token>& t) {
        std::vector<std::string> out;
        for (const auto& x : t)
            out.push_back(x.text);
        return out;
    };
    if (texts(a.source) != texts(b.source))
        return -1.0; // positions of different tokenizations are not the same words
    // The k-th occurrence of a text in a's outputs is matched with the k-th in b's.
    std::map<std::string, std::vector<int>> rowsOf;
    for (int r = 0; r < b.weights.rows; ++r)
        rowsOf[b.outputs[r].text].push_back(r);
    std::map<std::string, std::size_t> seen;
    int matched = 0, same = 0;
    for (int r = 0; r < a.weights.rows; ++r) {
        const auto& text = a.outputs[r].text;
        const auto it = rowsOf.find(text);
        const auto k = seen[text]++;
        if (it == rowsOf.end() || k >= it->second.size())
            continue;
        ++matched;
        same += argmaxOf(a.weights, r) == argmaxOf(b.weights, it->second[k]) ? 1 : 0;
    }
    return matched ? static_cast<double>(same) / matched : -1.0;
}

} // namespace core
