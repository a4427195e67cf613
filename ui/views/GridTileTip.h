#pragma once
// What hovering a tile of the attention grid says: the layer and head, the statistics of its weights, its
// scores on the Heads page, the key/value head it shares (grouped-query attention), how the tile was pooled,
// and how to switch the head off. Kept out of the grid widget, which paints.

#include "core/analysis/HeadAnalysis.h"
#include "ui/base/ShownAttention.h"

#include <QCoreApplication>
#include <QSize>
#include <QString>

#include <vector>

namespace ui {

class GridTileTip {
    Q_DECLARE_TR_FUNCTIONS(GridTileTip)
public:
    /// The tooltip of one tile (head may be core::kMeanHead); empty for a tile the shown block lacks.
    /// tilePixels: the device pixels a tile covers, which say whether it was pooled.
    static QString text(const ShownAttention& shown, int layer, int head,
                        const std::vector<core::HeadScores>& headScores, QSize tilePixels);
};

} // namespace ui
