#pragma once
// What the worker hands the Inside view: one opened row of attention and the next token's sampling
// pipeline, for the run and step they were computed in. Immutable once made.

#include "core/run/InsideRow.h"
#include "core/run/Sampler.h"

#include <QMetaType>

#include <cstdint>
#include <memory>

namespace ui {

struct InsideResult {
    core::InsideRow row;
    core::SamplingPipeline pipeline;
    uint64_t run = 0; ///< the analysis it belongs to
    int step = 0;     ///< tokens decoded since the analysis when it was computed
    double ms = 0.0;  ///< time the worker took
};

using InsideResultPtr = std::shared_ptr<const InsideResult>;

} // namespace ui

Q_DECLARE_METATYPE(ui::InsideResultPtr)
