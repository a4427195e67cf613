#include "core/run/InsideJson.h"

#include "core/base/TextFormat.h"
#include "core/run/JsonOut.h"

namespace core {

namespace {

using json::quoted;
using json::writeFloat;
using json::writeFloats;
using json::writeMatrix;

void writeSampling(std::ostream& out, const SamplingPipeline& p) {
    const auto& s = p.settings;
    out << "{\"greedy\": " << (s.greedy ? "true" : "false")
        << ", \"temperature\": " << formatDouble(s.temperature) << ", \"top_k\": " << s.topK
        << ", \"top_p\": " << formatDouble(s.topP) << ", \"seed\": " << s.seed << ", \"step\": " << p.step
        << ",\n \"vocabulary\": " << p.vocabulary << ", \"kept_count\": " << p.keptCount
        << ", \"kept_mass\": " << formatDouble(p.keptMass) << ", \"chosen\": " << p.chosen
        << ", \"chosen_text\": " << quoted(p.chosenText) << ",\n \"candidates\": [";
    for (std::size_t i = 0; i < p.candidates.size(); ++i) {
        const auto& c = p.candidates[i];
        out << (i ? ",\n  " : "\n  ") << "{\"id\": " << c.id << ", \"text\": " << quoted(c.text)
            << ", \"logprob\": ";
        writeFloat(out, c.logProb);
        out << ", \"tempered\": " << formatDouble(c.tempered)
            << ", \"in_top_k\": " << (c.inTopK ? "true" : "false")
            << ", \"in_top_p\": " << (c.inTopP ? "true" : "false") << ", \"kept\": " << formatDouble(c.kept)
            << '}';
    }
    out << "]}";
}

} // namespace

void writeInsideJson(std::ostream& out, const std::string& modelName, const InsideRow& row,
                     const SamplingPipeline& sampling) {
    const ClassicLocale classic(out);
    const auto& q = row.query;
    const auto queryText = q.row >= 0 && q.row < static_cast<int>(row.queryTokens.size())
                               ? row.queryTokens[static_cast<std::size_t>(q.row)].text
                               : std::string();
    out << "{\n\"model\": " << quoted(modelName) << ",\n\"kind\": \"" << toString(q.kind)
        << "\", \"layer\": " << q.layer << ", \"head\": " << q.head << ", \"row\": " << q.row
        << ",\n\"query_token\": " << quoted(queryText)
        << ",\n\"query_tokens\": " << json::tokenTexts(row.queryTokens)
        << ",\n\"key_tokens\": " << json::tokenTexts(row.keyTokens) << ",\n\"d_model\": " << row.dModel
        << ", \"d_k\": " << row.headSize << ", \"heads\": " << row.heads
        << ", \"kv_heads\": " << (row.kvHeads > 0 ? row.kvHeads : row.heads)
        << ", \"kv_head\": " << row.kvHead() << ", \"rotary\": " << (row.rotary ? "true" : "false")
        << ", \"post_norm\": " << (row.postNorm ? "true" : "false") << ", \"scale\": ";
    writeFloat(out, row.scale);
    const auto matrix = [&](const char* name, const Matrix& m) {
        out << ",\n\"" << name << "\": ";
        writeMatrix(out, m);
    };
    const auto vector = [&](const char* name, const std::vector<float>& v) {
        out << ",\n\"" << name << "\": ";
        writeFloats(out, v);
    };
    matrix("x", row.x);
    if (!row.memory.empty())
        matrix("memory", row.memory);
    matrix("q", row.q);
    matrix("k", row.k);
    matrix("v", row.v);
    matrix("products", row.products);
    vector("scores", row.scores);
    vector("scaled", row.scaled);
    out << ",\n\"mask\": [";
    for (std::size_t j = 0; j < row.visible.size(); ++j)
        out << (j ? "," : "") << (row.visible[j] ? "0" : "null");
    out << ']';
    vector("weights", row.weights);
    vector("captured_weights", row.captured);
    matrix("weighted_values", row.weighted);
    vector("z", row.z);
    vector("concat", row.concat);
    if (!row.headsOff.empty()) {
        out << ",\n\"heads_off\": [";
        bool first = true;
        for (std::size_t h = 0; h < row.headsOff.size(); ++h)
            if (row.headsOff[h]) {
                out << (first ? "" : ",") << h;
                first = false;
            }
        out << ']';
    }
    vector("attn_out", row.attnOut);
    vector("residual", row.residual);
    vector("output", row.output);
    out << ",\n\"sampling\": ";
    if (sampling.vocabulary == 0)
        out << "null"; // an encoder-only model has no next token to draw
    else
        writeSampling(out, sampling);
    out << "\n}\n";
}

} // namespace core
