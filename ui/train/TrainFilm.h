#pragma once
// A training run as the Train tab keeps it: the log rows that arrived and the frames of the probe's
// attention, each at its step; what the slider's label, the tab's lookups and a lesson read of it.

#include "core/run/AttentionSnapshot.h"
#include "ui/train/TrainingWorker.h"

#include <QCoreApplication>
#include <QString>

#include <memory>
#include <optional>
#include <vector>

namespace ui {

class TrainFilm {
    Q_DECLARE_TR_FUNCTIONS(TrainFilm)
public:
    using Snapshot = std::shared_ptr<const core::AttentionSnapshot>;

    void clear();
    void addRow(const TrainProgress& row) { rows_.push_back(row); }
    void addFrame(int64_t step, Snapshot snapshot) { frames_.emplace_back(step, std::move(snapshot)); }

    int frames() const { return static_cast<int>(frames_.size()); }
    /// The step of frame `index`, −1 out of range.
    int64_t frameStep(int index) const;
    Snapshot frame(int index) const;
    /// The first frame at or after `step`, the last at or before it; −1 when there is none.
    int frameAtOrAfter(int64_t step) const;
    int frameAtOrBefore(int64_t step) const;
    /// The last log row at or before `step` (nothing before the first).
    std::optional<TrainProgress> rowAt(int64_t step) const;
    /// "step 400 · best induction score 0.538": the frame's step, and its head score where its row has one.
    QString label(int index) const;

private:
    std::vector<std::pair<int64_t, Snapshot>> frames_;
    std::vector<TrainProgress> rows_;
};

} // namespace ui
