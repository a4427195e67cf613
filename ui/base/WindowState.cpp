#include "ui/base/WindowState.h"

#include <cmath>

namespace ui {

bool sameSampling(const core::SamplingSettings& a, const core::SamplingSettings& b) {
    return a.greedy == b.greedy && a.temperature == b.temperature && a.topK == b.topK && a.topP == b.topP &&
           a.seed == b.seed;
}

bool sameZoom(const std::optional<QRectF>& a, const std::optional<QRectF>& b) {
    if (!a || !b)
        return !a && !b;
    if (a->isEmpty() || b->isEmpty())
        return a->isEmpty() && b->isEmpty();
    // A view read back from the axes is the one set, to the last bits of the arithmetic that turned it into
    // axis ranges and back.
    const auto near = [](double x, double y) { return std::abs(x - y) < 1e-6; };
    return near(a->x(), b->x()) && near(a->y(), b->y()) && near(a->width(), b->width()) &&
           near(a->height(), b->height());
}

bool WindowState::operator==(const WindowState& o) const {
    return model == o.model && text == o.text && step == o.step && forced == o.forced &&
           sameZoom(zoom, o.zoom) && sameSampling(sampling, o.sampling) && pastMaxLen == o.pastMaxLen &&
           headsOff == o.headsOff && pinAt == o.pinAt && tab == o.tab && kind == o.kind && layer == o.layer &&
           head == o.head && markRow == o.markRow && markColumn == o.markColumn && scale == o.scale &&
           valueWeighted == o.valueWeighted && colorMap == o.colorMap && lines == o.lines &&
           insideStage == o.insideStage && train == o.train && frame == o.frame;
}

} // namespace ui
