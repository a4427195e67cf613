#pragma once
// What hovering a cell of the detail heatmap says: the query and key tokens (a decoder row with the token it
// produces), and the weight, or with weight × value colouring both the weight and the share of the row the
// key hands over. Kept out of the heatmap widget, which paints.

#include "ui/base/ShownAttention.h"

#include <QCoreApplication>
#include <QString>

namespace ui {

class HeatmapCellTip {
    Q_DECLARE_TR_FUNCTIONS(HeatmapCellTip)
public:
    /// The tooltip of cell (query, key) of what is shown; `value` is the number the cell is coloured by
    /// (the weight, or its value-weighted share).
    static QString text(const ShownAttention& shown, int query, int key, double value);
};

} // namespace ui
