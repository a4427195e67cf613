#pragma once
// The window's pages, in the order of their tabs, and the names the command line (--tab) and lessons give
// them. Kept apart from MainWindow so that what names a page need not know the window.

#include <QString>

#include <optional>

namespace ui {

enum class Page { Attention, Positional, Train, Heads, Inside, SideBySide, Rollout, Ablation, Compare, Lens };

inline constexpr int kPageCount = 10;

/// "attention", "positional", "train", "heads", "inside", "side", "rollout", "ablation", "compare", "lens".
inline QString pageName(Page page) {
    static const char* const names[kPageCount] = {"attention", "positional", "train",    "heads",   "inside",
                                                  "side",      "rollout",    "ablation", "compare", "lens"};
    return QLatin1String(names[static_cast<int>(page)]);
}

inline std::optional<Page> pageNamed(const QString& name) {
    for (int i = 0; i < kPageCount; ++i)
        if (pageName(Page(i)) == name)
            return Page(i);
    return std::nullopt;
}

} // namespace ui
