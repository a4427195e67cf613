#include "ui/run/StepHistory.h"

namespace ui {

void StepHistory::keep(const RunResultPtr& r) {
    const auto step = static_cast<std::size_t>(r->step);
    steps_.resize(step + 1);
    steps_[step] = r;
    std::size_t total = 0;
    for (const auto& h : steps_)
        total += h ? h->bytes : 0;
    // Oldest first, never the newest: it is on screen or about to be.
    for (std::size_t i = 0; i + 1 < steps_.size() && total > budget_; ++i)
        if (steps_[i]) {
            total -= steps_[i]->bytes;
            steps_[i].reset();
        }
}

RunResultPtr StepHistory::at(std::size_t step) const {
    return step < steps_.size() ? steps_[step] : nullptr;
}

int StepHistory::size() const {
    int n = 0;
    for (const auto& h : steps_)
        n += h ? 1 : 0;
    return n;
}

} // namespace ui
