#pragma once
// What the worker hands the Inside view: one opened row of attention and the next token's sampling
// pipeline, for the run and step they were computed in. Immutable once made.

#include "core/run/InsideRow.h"
#include "core/run/Sampler.h"

#include <QMetaType>

#include <cstdint>
#include <memory>
#include <vector>

namespace core {
class Session;
}

namespace ui {

struct InsideResult {
    core::InsideRow row;
    core::SamplingPipeline pipeline; ///< empty when the model decodes nothing
    bool decodes = true;             ///< false for an encoder-only model: no next token to draw
    uint64_t run = 0;                ///< the analysis it belongs to
    int step = 0;                    ///< tokens decoded since the analysis when it was computed
    double ms = 0.0;                 ///< time the worker took
    /// The ids of the source and target it was computed on: which state it belongs to, whatever branch
    /// (Back, then another token forced) led there.
    std::vector<int64_t> source, target;
};

using InsideResultPtr = std::shared_ptr<const InsideResult>;

/// Opens the row in the session's current state (core::Session::inside and its sampling pipeline), stamped
/// with the run and the state's tokens. Throws core::InputError as Session::inside does.
InsideResultPtr openInside(const core::Session& session, const core::InsideQuery& query, uint64_t run);

} // namespace ui

Q_DECLARE_METATYPE(ui::InsideResultPtr)
