#include "ui/base/WindowState.h"

namespace ui {

bool sameSampling(const core::SamplingSettings& a, const core::SamplingSettings& b) {
    return a.greedy == b.greedy && a.temperature == b.temperature && a.topK == b.topK && a.topP == b.topP &&
           a.seed == b.seed;
}

bool WindowState::operator==(const WindowState& o) const {
    return model == o.model && text == o.text && step == o.step && sameSampling(sampling, o.sampling) &&
           pastMaxLen == o.pastMaxLen && headsOff == o.headsOff && pinAt == o.pinAt && tab == o.tab &&
           kind == o.kind && layer == o.layer && head == o.head && markRow == o.markRow &&
           markColumn == o.markColumn && scale == o.scale && valueWeighted == o.valueWeighted &&
           colorMap == o.colorMap && lines == o.lines && insideStage == o.insideStage && train == o.train &&
           frame == o.frame;
}

} // namespace ui
