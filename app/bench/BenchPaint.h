#pragma once
// The GUI rows of the size table: how long the layer × head grid and the detail heatmap take to show a
// cell's snapshot, painted offscreen at the size they have in the window. A QApplication must exist.

#include "app/bench/BenchMeasure.h"

#include "core/run/AttentionSnapshot.h"

#include <vector>

/// "paint grid" and "paint detail" of one snapshot, in the window's default colour map and fixed scale, on
/// the kind the table's snapshots are read for: cross-attention of an encoder–decoder, decoder
/// self-attention of a decoder-only model. Each run hands the widget the snapshot and forces the paint it
/// would otherwise get from the event loop. A TableOptions::snapshotMeasures entry.
std::vector<Row> measurePaint(const core::AttentionSnapshot& snapshot, const Plan& plan);
