#include "ui/train/TrainFilm.h"

namespace ui {

void TrainFilm::clear() {
    frames_.clear();
    rows_.clear();
}

int64_t TrainFilm::frameStep(int index) const {
    return index >= 0 && index < frames() ? frames_[std::size_t(index)].first : -1;
}

TrainFilm::Snapshot TrainFilm::frame(int index) const {
    return index >= 0 && index < frames() ? frames_[std::size_t(index)].second : nullptr;
}

int TrainFilm::frameAtOrAfter(int64_t step) const {
    for (int i = 0; i < frames(); ++i)
        if (frames_[std::size_t(i)].first >= step)
            return i;
    return -1;
}

int TrainFilm::frameAtOrBefore(int64_t step) const {
    int found = -1;
    for (int i = 0; i < frames(); ++i)
        if (frames_[std::size_t(i)].first <= step)
            found = i;
    return found;
}

std::optional<TrainProgress> TrainFilm::rowAt(int64_t step) const {
    std::optional<TrainProgress> found;
    for (const auto& r : rows_)
        if (r.step <= step)
            found = r;
    return found;
}

QString TrainFilm::label(int index) const {
    const auto step = frameStep(index);
    QString text = tr("step %1").arg(step);
    // An induction run's frames land on logged steps: the frame says how far the head has formed.
    if (const auto row = rowAt(step); row && row->step == step && row->induction >= 0)
        text += tr(" · best induction score %1").arg(row->induction, 0, 'f', 3);
    return text;
}

} // namespace ui
