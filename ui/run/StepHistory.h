#pragma once
// The results of one run's steps, kept so Back and Reset show a step again without recomputing it: the
// current branch only (a result at step k replaces k and drops what came after), within a budget of bytes
// beyond which the oldest steps are dropped (Back then recomputes them).

#include "ui/run/RunResult.h"

#include <cstddef>
#include <vector>

namespace ui {

class StepHistory {
public:
    void clear() { steps_.clear(); }
    /// Keeps r as its step's result, drops the steps after it, and the oldest ones past the budget.
    void keep(const RunResultPtr& r);
    /// The result kept for a step, or null (never kept, dropped, or past the branch's end).
    RunResultPtr at(std::size_t step) const;
    /// Steps whose result is kept.
    int size() const;
    void setBudget(std::size_t bytes) { budget_ = bytes; }

private:
    std::vector<RunResultPtr> steps_; // index = step; null where dropped
    std::size_t budget_ = std::size_t(512) << 20;
};

} // namespace ui
