#pragma once
// The window's state as one value: what is open and analysed, how far it is decoded and how, what is shown
// and how. A lesson's step is one (README, "Lessons"), `attnscope --screenshot` builds one from its options,
// and WindowDriver brings the window to it. A field that is empty or unset leaves that part of the window as
// it is; everything else is the state itself.

#include "core/model/AttentionBlock.h"
#include "core/model/HeadAblation.h"
#include "core/run/Sampler.h"
#include "ui/base/ColorMap.h"

#include <QRectF>
#include <QString>

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace ui {

/// A run of the Train tab a state wants: started from a preset (the tab's task list) when the tab has no
/// such run yet, so a lesson can train a model in front of the class.
struct WindowTraining {
    QString preset;    ///< the recipe's name ("induction"); empty: the state wants no run
    int steps = 0;     ///< steps to train; 0: the recipe's own
    bool tiny = false; ///< the Train tab's tiny size rather than the recipe's
    bool wanted() const { return !preset.isEmpty(); }
    bool operator==(const WindowTraining& o) const {
        return preset == o.preset && steps == o.steps && tiny == o.tiny;
    }
};

/// The same way of choosing tokens, every setting alike.
bool sameSampling(const core::SamplingSettings& a, const core::SamplingSettings& b);
/// The same view of the detail heatmap (both unset, both the whole map, or the same cells).
bool sameZoom(const std::optional<QRectF>& a, const std::optional<QRectF>& b);

struct WindowState {
    /// The model: a folder; a lesson's step also names a built-in model by its folder's name, or a folder
    /// relative to the lesson's file (LessonFile::modelFolder resolves them). Empty: the one open.
    QString model;
    QString text; ///< the source (a language model's prompt)
    int step = 0; ///< tokens decoded after the analysis
    /// Tokens chosen instead of the model's (a click on the next-token chart): {which decoded token, from
    /// 0 for the first; its id}, in that order. The decode forces each where it falls.
    std::vector<std::pair<int, int64_t>> forced;
    core::SamplingSettings sampling; ///< how those tokens are chosen (greedy unless told)
    std::optional<bool> pastMaxLen;  ///< read a text past max_len where positions allow; unset: as it is
    /// Heads switched off once the tokens are decoded (the tokens are kept, as a Ctrl+click keeps them).
    core::HeadAblation headsOff;
    int pinAt = -1; ///< the Compare page's run pinned when decoding passes this step (−1: no pin)
    QString tab = QStringLiteral("attention"); ///< a page: pageName()
    /// Every Transformer has decoder attention; unset: the kind the window chose for the model.
    std::optional<core::AttentionKind> kind = core::AttentionKind::Decoder;
    int layer = 0;
    int head = 0;        ///< core::kMeanHead for the mean over heads
    int markRow = -1;    ///< a query row marked (−1: none)
    int markColumn = -1; ///< a key column marked (−1: none); at most one of the two
    ScaleMode scale = ScaleMode::Fixed;
    bool valueWeighted = false; ///< colour by weight × value
    QString colorMap;           ///< a ColorMap name; empty: as it is
    std::optional<bool> lines;  ///< the head drawn as lines instead of a heatmap; unset: as it is
    /// The detail heatmap's view in cells, x keys and y queries (HeatmapView::visibleCells); an empty rect:
    /// the whole map; unset: as it is.
    std::optional<QRectF> zoom;
    /// The Inside page's stage brought into view and framed, 1–5 (0: none). Its row is the marked one.
    int insideStage = 0;
    WindowTraining train;
    /// The Train tab's frame of the probe's attention: the newest, the first at which the run's best
    /// induction score has reached 0.5, or the last at or before a step.
    static constexpr int kLatestFrame = -1;
    static constexpr int kFormedFrame = -2;
    int frame = kLatestFrame;

    bool operator==(const WindowState& o) const;
    bool operator!=(const WindowState& o) const { return !(*this == o); }
};

} // namespace ui
