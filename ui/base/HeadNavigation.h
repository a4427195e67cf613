#pragma once
// The keys that move between heads and layers, shared by every view that shows one head or all of them:
// ←/→ heads, ↑/↓ and PgUp/PgDn layers.

#include <Qt>

#include <optional>
#include <utility>

namespace ui {

/// {dLayer, dHead} for a navigation key, nothing for any other key.
inline std::optional<std::pair<int, int>> headNavigationStep(int key) {
    switch (key) {
    case Qt::Key_Left:
        return std::pair{0, -1};
    case Qt::Key_Right:
        return std::pair{0, 1};
    case Qt::Key_Up:
    case Qt::Key_PageUp:
        return std::pair{-1, 0};
    case Qt::Key_Down:
    case Qt::Key_PageDown:
        return std::pair{1, 0};
    default:
        return std::nullopt;
    }
}

} // namespace ui
