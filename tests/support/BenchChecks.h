#pragma once
// What `attnscope bench --json` must hold, section by section: every row timed and sane, each section's
// shape and targets (test_cli_bench runs the bench and calls these on its JSON).

#include <QtTest>

#include <algorithm>
#include <cstddef>
#include <map>
#include <string>
#include <tuple>
#include <utility>

#include <nlohmann/json.hpp>

namespace benchchecks {

using nlohmann::json;

// Every timing of a bench row is positive and ordered; a constant (a size) has min = median = max.
inline bool sane(const json& row, int runs) {
    return row["runs"].get<int>() == runs && row["min"].get<double>() > 0 &&
           row["min"].get<double>() <= row["median"].get<double>() &&
           row["median"].get<double>() <= row["max"].get<double>();
}

inline std::map<std::string, json> rowsById(const json& rows) {
    std::map<std::string, json> out;
    for (const auto& r : rows)
        out[r["id"].get<std::string>()] = r;
    return out;
}

// The seed's recurrent models, as modules: three rows, each timed.
inline void checkRecurrent(const json& j) {
    const auto& rec = j["recurrent"]["rows"];
    QCOMPARE(rec.size(), std::size_t(3));
    for (const auto& row : rec)
        QVERIFY2(row["median"].get<double>() > 0.0 && row["runs"].get<int>() == 3, row.dump().c_str());
    QCOMPARE(rec[2]["id"].get<std::string>(), std::string("translator_step"));
}

// The products alone: both paths timed at every shape, where this build packs.
inline void checkProducts(const json& j) {
    const auto packedWith = j["machine"]["packed_weights"].get<std::string>();
    QCOMPARE(j["products"]["packed_with"].get<std::string>(), packedWith);
    const auto& cells = j["products"]["cells"];
    QCOMPARE(cells.size(), std::size_t(11));
    for (const auto& c : cells) {
        QVERIFY2(c["sgemm_gflops"].get<double>() > 0.0, c.dump().c_str());
        if (packedWith.rfind("oneDNN", 0) == 0)
            QVERIFY2(c["packed_gflops"].get<double>() > 0.0 &&
                         c["packed_ms"]["min"].get<double>() <= c["packed_ms"]["max"].get<double>(),
                     c.dump().c_str());
    }
}

// Rollout, flow, heads switched off, value weighting, the logit lens: each row timed, each target reported.
inline void checkAnalyses(const json& j) {
    const auto& analyses = j["analyses"]["cases"];
    QCOMPARE(analyses.size(), std::size_t(3));
    QCOMPARE(analyses[0]["id"].get<std::string>(), std::string("ablation-default"));
    QCOMPARE(analyses[1]["id"].get<std::string>(), std::string("rollout-gpt2"));
    QCOMPARE(analyses[1]["T"].get<int>(), 1024);
    QCOMPARE(analyses[2]["id"].get<std::string>(), std::string("lens-gpt2"));
    QCOMPARE(analyses[2]["T"].get<int>(), 64);
    // The lens beside its bound (the unembedding alone cannot take longer than the whole lens), then the
    // attribution of one position, each with its target.
    const auto& lens = analyses[2]["rows"];
    QCOMPARE(lens.size(), std::size_t(3));
    QCOMPARE(lens[2]["id"].get<std::string>(), std::string("attribution"));
    QVERIFY(lens[1]["min"].get<double>() <= lens[0]["max"].get<double>());
    QCOMPARE(analyses[2]["targets"].size(), std::size_t(2));
    QCOMPARE(analyses[2]["targets"][1]["value"], lens[2]["median"]);
    for (const auto& c : analyses) {
        for (const auto& row : c["rows"])
            QVERIFY2(row["median"].get<double>() > 0.0 &&
                         row["min"].get<double>() <= row["max"].get<double>(),
                     row.dump().c_str());
        QVERIFY(!c["targets"].empty());
        QCOMPARE(c["targets"][0]["value"], c["rows"][c["id"] == "rollout-gpt2" ? 1 : 0]["median"]);
    }
}

// The translation section: the reverse model on "abc", each part of a run timed.
inline void checkTranslation(const json& j) {
    const auto& t = j["translation"];
    QCOMPARE(t["model"]["name"].get<std::string>(), std::string("reverse"));
    QCOMPARE(t["src_words"].get<int>(), 1);
    QCOMPARE(t["src_tokens"].get<int>(), 5); // <bos> a b c <eos>
    QVERIFY(t["output_tokens"].get<int>() >= 1);
    auto rows = rowsById(t["rows"]);
    for (const char* id : {"translate", "analyze", "steps", "snapshot", "step"}) {
        QVERIFY2(rows.count(id), id);
        QVERIFY2(sane(rows[id], 3), rows[id].dump().c_str());
    }
    // Every run's whole covers its parts, so the fastest parts fit within the slowest whole.
    QVERIFY(rows["analyze"]["min"].get<double>() + rows["steps"]["min"].get<double>() <=
            rows["translate"]["max"].get<double>());
}

// The table: a cell per size and T, skipped past max_len, with its paint rows and snapshot bytes.
inline void checkSizes(const json& j) {
    QCOMPARE(j["lengths"], json({8, 32, 40}));
    const auto& sizes = j["sizes"];
    QCOMPARE(sizes.size(), std::size_t(3));
    QCOMPARE(sizes[0]["id"].get<std::string>(), std::string("default"));
    QCOMPARE(sizes[0]["name"].get<std::string>(), std::string("reverse"));
    QCOMPARE(sizes[0]["max_len"].get<int>(), 41); // a decode step at position 40 exists
    QCOMPARE(sizes[1]["architecture"].get<std::string>(), std::string("decoder_only"));
    QCOMPARE(sizes[2]["max_len"].get<int>(), 32); // a directory keeps its own
    for (const auto& size : sizes) {
        const bool encDec = size["architecture"] == "encoder_decoder";
        for (const auto& cell : size["cells"]) {
            const auto T = cell["T"].get<int>();
            if (T > size["max_len"].get<int>()) {
                QVERIFY(cell.contains("skipped"));
                QVERIFY(cell["rows"].empty());
                continue;
            }
            auto rows = rowsById(cell["rows"]);
            for (const char* id :
                 {"analysis", "analysis_nocapture", "capture_cost", "snapshot", "decode_step"}) {
                QVERIFY2(rows.count(id), (size.dump() + " " + id).c_str());
                QVERIFY2(sane(rows[id], 3), rows[id].dump().c_str());
            }
            // The widgets painted offscreen from the cell's snapshot.
            for (const char* id : {"paint_grid", "paint_detail"}) {
                QVERIFY2(rows.count(id), (size.dump() + " " + id).c_str());
                QVERIFY2(sane(rows[id], 3), rows[id].dump().c_str());
                const auto kind = encDec ? std::string("(cross)") : std::string("(decoder self)");
                QVERIFY2(rows[id]["label"].get<std::string>().find(kind) != std::string::npos,
                         rows[id].dump().c_str());
            }
            QCOMPARE(cell["decode_position"].get<int>(), std::min(T, size["max_len"].get<int>() - 1));
            // [layer][head][query][key] floats of each kind, and the next-token log-probabilities.
            const auto L = size["decoder_layers"].get<std::size_t>(), H = size["heads"].get<std::size_t>();
            const auto kinds = encDec ? 3u : 1u;
            const auto bytes = 4 * (kinds * L * H * T * T + size["tgt_vocab"].get<std::size_t>());
            QCOMPARE(cell["snapshot_bytes"].get<std::size_t>(), bytes);
            QCOMPARE(rows["snapshot"]["median"].get<double>(), static_cast<double>(bytes) / 1e6);
            QCOMPARE(rows.count("greedy"), std::size_t(encDec ? 1 : 0));
            QCOMPARE(cell.contains("greedy_tokens"), encDec);
            if (encDec) {
                QVERIFY(sane(rows["greedy"], 3));
                QCOMPARE(cell["greedy_tokens"].size(), std::size_t(4));
            }
        }
    }
    QVERIFY(sizes[2]["cells"][2].contains("skipped"));
}

// The inside section: --model's shape at T = 64 (cross-attention) and GPT-2's at 1024 (decoder self);
// each run's total is its compute and its repaint, held to 30 and 100 ms.
inline void checkInside(const json& j) {
    const auto& in = j["inside"];
    QCOMPARE(in["cases"].size(), std::size_t(2));
    const std::tuple<const char*, int, const char*, double> insideCases[] = {
        {"default", 64, "cross", 30.0}, {"gpt2", 1024, "decoder", 100.0}};
    for (std::size_t i = 0; i < 2; ++i) {
        const auto& c = in["cases"][i];
        QCOMPARE(c["id"].get<std::string>(), std::string(std::get<0>(insideCases[i])));
        QCOMPARE(c["T"].get<int>(), std::get<1>(insideCases[i]));
        QCOMPARE(c["kind"].get<std::string>(), std::string(std::get<2>(insideCases[i])));
        auto rows = rowsById(c["rows"]);
        for (const char* id : {"compute", "paint", "total"}) {
            QVERIFY2(rows.count(id), id);
            QVERIFY2(sane(rows[id], 3), rows[id].dump().c_str());
        }
        QVERIFY(rows["compute"]["min"].get<double>() + rows["paint"]["min"].get<double>() <=
                rows["total"]["max"].get<double>() + 1e-9);
        QCOMPARE(c["target"]["limit"].get<double>(), std::get<3>(insideCases[i]));
        QCOMPARE(c["target"]["met"].get<bool>(),
                 rows["total"]["median"].get<double>() <= std::get<3>(insideCases[i]));
    }
}

// The keystroke section: --model's shape at 64 and 1024 tokens; both beyond the reverse model's max_len
// of 32, so both on random weights with max_len raised.
inline void checkKeystroke(const json& j) {
    const auto& k = j["keystroke"];
    QCOMPARE(k["model"].get<std::string>(), std::string("reverse"));
    QCOMPARE(k["debounce_ms_not_included"].get<int>(), 30);
    QCOMPARE(k["cells"].size(), std::size_t(2));
    const std::pair<int, double> targets[] = {{64, 16.0}, {1024, 100.0}};
    for (std::size_t i = 0; i < 2; ++i) {
        const auto& cell = k["cells"][i];
        QCOMPARE(cell["T"].get<int>(), targets[i].first);
        QCOMPARE(cell["target_ms"].get<double>(), targets[i].second);
        QCOMPARE(cell["note"].get<std::string>(),
                 "max_len raised from 32 to " + std::to_string(targets[i].first));
        auto rows = rowsById(cell["rows"]);
        for (const char* id : {"keystroke_repaint", "keystroke_result", "result_repaint"}) {
            QVERIFY2(rows.count(id), id);
            QVERIFY2(sane(rows[id], 3), rows[id].dump().c_str());
        }
        // Every run's result arrives before its repaint ends.
        QVERIFY(rows["keystroke_result"]["median"].get<double>() <
                rows["keystroke_repaint"]["median"].get<double>());
        QCOMPARE(cell["target_met"].get<bool>(),
                 rows["keystroke_repaint"]["median"].get<double>() <= targets[i].second);
    }
}

} // namespace benchchecks
