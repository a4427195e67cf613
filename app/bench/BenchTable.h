#pragma once
// The second section of `attnscope bench`: for each model size and length T, what an analysis costs with
// and without capture, what a KV-cached decode step at position T costs, and how big the snapshot is.

#include "app/bench/BenchMeasure.h"
#include "app/bench/BenchModels.h"

#include "core/model/ModelConfig.h"
#include "core/run/AttentionSnapshot.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

/// Rows measured on a cell's captured snapshot (the analysis at T with capture on). The GUI side plugs in
/// here: painting the layer × head grid and the detail heatmap offscreen from that snapshot, so those rows
/// appear in the table and the JSON beside the core's.
using SnapshotMeasure = std::function<std::vector<Row>(const core::AttentionSnapshot&, const Plan&)>;

struct TableOptions {
    std::vector<int> lengths;
    Plan plan;
    int greedy = 0; ///< tokens of a greedy-decode row for the encoder–decoder sizes; 0: no such row
    std::vector<SnapshotMeasure> snapshotMeasures;
};

/// One (size, T) cell.
struct Cell {
    int length = 0;
    int decodePosition = -1;           ///< T, or max_len − 1 when T fills the context
    std::size_t snapshotBytes = 0;     ///< captured attention and log-probabilities of the analysis
    std::vector<int64_t> greedyTokens; ///< the greedy row's tokens, to compare with the seed's loop
    std::string skipped;               ///< why the cell has no rows (T beyond max_len), or empty
    std::vector<Row> rows;
};

struct SizeReport {
    std::string id;
    std::string weights;
    std::string note;
    core::ModelConfig config;
    std::vector<Cell> cells;
};

/// Measures every length of the options on one model. `progress` hears about each cell before it starts
/// (the large cells take minutes). Throws core::Error when the model refuses an input.
SizeReport measureSize(const BenchSize& size, const TableOptions& options,
                       const std::function<void(const std::string&)>& progress);

/// The size's shape and origin, then one line per measure with a column per T.
void printText(const SizeReport& r);
nlohmann::ordered_json toJson(const SizeReport& r);
