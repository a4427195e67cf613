#include "app/bench/BenchTable.h"

#include "core/run/Analyze.h"
#include "core/run/IncrementalDecoder.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace {

int64_t argmax(const std::vector<float>& v) {
    return static_cast<int64_t>(std::max_element(v.begin(), v.end()) - v.begin());
}

struct Inputs {
    std::vector<int64_t> src; // T ids; empty for decoder-only
    std::vector<int64_t> tgt; // <bos> and T − 1 ids
    int64_t bos = 0;
    int64_t next = 0; // the token of the timed decode step
};

Inputs inputsFor(const core::Model& model, int length) {
    const auto& c = model.config();
    Inputs in;
    in.bos = model.targetTokenizer().vocab().bos();
    if (c.hasEncoder())
        in.src = benchIds(length, c.srcVocabSize, 1);
    in.tgt = benchIds(length - 1, c.tgtVocabSize, 2);
    in.tgt.insert(in.tgt.begin(), in.bos);
    in.next = benchIds(1, c.tgtVocabSize, 3).front();
    return in;
}

// Each run times capture off and then on, so a busy moment of the machine lands on both halves of the
// ratio. The last capture-on snapshot is kept for the snapshot measures; the previous one is freed before
// the next analysis starts, so no run pays for two of them (600 MB each for GPT-2's shape at T=1024).
void measureAnalysis(const core::Model& model, const Inputs& in, const TableOptions& o, Cell& cell) {
    struct Pair {
        double off = 0.0;
        double on = 0.0;
    };
    core::AttentionSnapshot kept;
    const auto runs = repeat(o.plan, [&] {
        Pair p;
        auto t0 = BenchClock::now();
        {
            const auto plain = core::analyze(model, in.src, in.tgt, false);
            p.off = msSince(t0);
        }
        kept = {};
        t0 = BenchClock::now();
        auto captured = core::analyze(model, in.src, in.tgt, true);
        p.on = msSince(t0);
        kept = std::move(captured);
        return p;
    });
    cell.snapshotBytes = kept.bytes();
    cell.rows.push_back(
        {"analysis", "analysis, capture on", summarize(runs, [](const Pair& p) { return p.on; })});
    cell.rows.push_back({"analysis_nocapture", "analysis, capture off",
                         summarize(runs, [](const Pair& p) { return p.off; })});
    cell.rows.push_back({"capture_cost", "capture cost, on / off",
                         summarize(runs, [](const Pair& p) { return p.on / std::max(p.off, 1e-9); }), "x"});
    cell.rows.push_back({"snapshot", "snapshot (attention + log-probs)",
                         constantStat(static_cast<double>(cell.snapshotBytes) / 1e6, o.plan.runs), "MB"});
    for (const auto& measure : o.snapshotMeasures)
        for (auto& row : measure(kept, o.plan))
            cell.rows.push_back(std::move(row));
}

// The cache is filled once, untimed; each timed run rewinds to the position and makes the one step, so
// every run costs the same as the first step past T tokens.
void measureDecodeStep(const std::shared_ptr<const core::Model>& model, const Inputs& in,
                       const TableOptions& o, Cell& cell) {
    cell.decodePosition = std::min(cell.length, model->config().maxLen - 1);
    const auto pos = cell.decodePosition;
    core::IncrementalDecoder decoder(model, in.src, true);
    for (int i = 0; i < pos; ++i)
        decoder.push(in.tgt[static_cast<std::size_t>(i)]);
    const auto runs = repeat(o.plan, [&] {
        decoder.rewind(pos);
        const auto t0 = BenchClock::now();
        const auto step = decoder.push(in.next); // freed after the clock stops: the window keeps it
        return msSince(t0);
    });
    cell.rows.push_back({"decode_step", "decode step at T (KV cache)", summarize(runs)});
}

// From the source's encoding to the last of n tokens, as a user's "decode to the end" runs; the loop the
// seed's code uses for the same job is timed by scripts/bench_vs_seed.py on the same ids.
void measureGreedy(const std::shared_ptr<const core::Model>& model, const Inputs& in, const TableOptions& o,
                   Cell& cell) {
    std::vector<int64_t> tokens;
    const auto runs = repeat(o.plan, [&] {
        const auto t0 = BenchClock::now();
        core::IncrementalDecoder decoder(model, in.src, true);
        tokens.clear();
        auto token = in.bos;
        for (int i = 0; i < o.greedy; ++i) {
            token = argmax(decoder.push(token).logProbs);
            tokens.push_back(token);
        }
        return msSince(t0);
    });
    cell.greedyTokens = tokens;
    cell.rows.push_back(
        {"greedy", "greedy decode of " + std::to_string(o.greedy) + " tokens", summarize(runs)});
}

Cell measureCell(const std::shared_ptr<const core::Model>& model, int length, const TableOptions& o) {
    const auto& c = model->config();
    Cell cell;
    cell.length = length;
    if (length > c.maxLen) {
        cell.skipped = "T=" + std::to_string(length) + " is beyond max_len " + std::to_string(c.maxLen);
        return cell;
    }
    const auto in = inputsFor(*model, length);
    measureAnalysis(*model, in, o, cell);
    if (c.hasDecoder()) // an encoder-only model has no step to take
        measureDecodeStep(model, in, o, cell);
    if (o.greedy > 0 && c.twoSided() && o.greedy <= c.maxLen)
        measureGreedy(model, in, o, cell);
    return cell;
}

} // namespace

SizeReport measureSize(const BenchSize& size, const TableOptions& options,
                       const std::function<void(const std::string&)>& progress) {
    SizeReport r;
    r.id = size.id;
    r.weights = size.weights;
    r.note = size.note;
    r.config = size.model->config();
    for (const int length : options.lengths) {
        progress(size.id + " T=" + std::to_string(length));
        r.cells.push_back(measureCell(size.model, length, options));
    }
    return r;
}

void printText(const SizeReport& r) {
    const auto named = r.config.name == r.id ? std::string() : " (" + r.config.name + ")";
    std::printf("%s%s: %s\n", r.id.c_str(), named.c_str(), describeShape(r.config).c_str());
    std::printf("  weights %s%s%s\n", r.weights.c_str(), r.note.empty() ? "" : "; ", r.note.c_str());
    // Measures in the order they first appear, so rows plugged in later print after the core's.
    std::vector<std::pair<std::string, std::string>> measures; // id, label with unit
    std::vector<std::map<std::string, std::string>> columns;   // per cell: id -> text
    std::size_t labelWidth = 8, width = 8;
    for (const auto& cell : r.cells) {
        std::map<std::string, std::string> column;
        for (const auto& row : cell.rows) {
            if (std::none_of(measures.begin(), measures.end(),
                             [&](const auto& m) { return m.first == row.id; })) {
                measures.emplace_back(row.id, row.label + " (" + row.unit + ")");
                labelWidth = std::max(labelWidth, measures.back().second.size());
            }
            column[row.id] = cellText(row);
            width = std::max(width, column[row.id].size());
        }
        columns.push_back(std::move(column));
    }
    const auto line = [&](const std::string& label, const std::vector<std::string>& texts) {
        std::string out = "  " + label + std::string(labelWidth - label.size(), ' ');
        for (const auto& t : texts)
            out += "  " + t + std::string(width - std::min(width, t.size()), ' ');
        out.erase(out.find_last_not_of(' ') + 1);
        std::printf("%s\n", out.c_str());
    };
    std::vector<std::string> texts;
    for (const auto& cell : r.cells)
        texts.push_back("T=" + std::to_string(cell.length));
    line("", texts);
    for (const auto& [id, label] : measures) {
        texts.clear();
        for (const auto& column : columns) {
            const auto it = column.find(id);
            texts.push_back(it == column.end() ? "-" : it->second);
        }
        line(label, texts);
    }
    for (const auto& cell : r.cells) {
        if (!cell.skipped.empty())
            std::printf("  %s: not measured\n", cell.skipped.c_str());
        else if (cell.decodePosition >= 0 && cell.decodePosition != cell.length)
            std::printf("  T=%d: the decode step is at position %d, the last one max_len allows\n",
                        cell.length, cell.decodePosition);
    }
}

nlohmann::ordered_json toJson(const SizeReport& r) {
    const auto& c = r.config;
    nlohmann::ordered_json j;
    j["id"] = r.id;
    j["name"] = c.name;
    j["architecture"] = core::toString(c.architecture);
    j["encoder_layers"] = c.hasEncoder() ? c.encoderLayers : 0;
    j["decoder_layers"] = c.hasDecoder() ? c.decoderLayers : 0;
    j["d_model"] = c.dModel;
    j["heads"] = c.heads;
    j["d_ff"] = c.dFf;
    j["src_vocab"] = c.hasEncoder() ? c.srcVocabSize : 0;
    j["tgt_vocab"] = c.tgtVocabSize;
    j["max_len"] = c.maxLen;
    j["weights"] = r.weights;
    j["note"] = r.note;
    j["cells"] = nlohmann::ordered_json::array();
    for (const auto& cell : r.cells) {
        nlohmann::ordered_json k;
        k["T"] = cell.length;
        if (!cell.skipped.empty())
            k["skipped"] = cell.skipped;
        else {
            if (cell.decodePosition >= 0) // an encoder-only model takes no step
                k["decode_position"] = cell.decodePosition;
            k["snapshot_bytes"] = cell.snapshotBytes;
        }
        if (!cell.greedyTokens.empty())
            k["greedy_tokens"] = cell.greedyTokens;
        k["rows"] = toJson(cell.rows);
        j["cells"].push_back(std::move(k));
    }
    return j;
}
