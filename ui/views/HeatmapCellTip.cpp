#include "ui/views/HeatmapCellTip.h"

#include "ui/base/TokenText.h"

#include <algorithm>

namespace ui {

namespace {

// Both numbers: the weight the head computed, and the share of what it carries that the key hands over.
QString valueWeightedText(const ShownAttention& shown, int query, int key, double value) {
    const auto* w = shown.weights();
    const int l = shown.layer, h = shown.head;
    double weight = 0.0;
    if (h == core::kMeanHead) {
        for (int i = 0; i < w->heads; ++i)
            weight += w->at(l, i, query, key);
        weight /= std::max(1, w->heads);
    } else {
        weight = w->at(l, h, query, key);
    }
    QString text = HeatmapCellTip::tr("weight %1").arg(QString::number(weight, 'g', 6));
    const auto& norms = shown.snapshot->valueNorms(shown.kind);
    if (h != core::kMeanHead && !norms.empty())
        text += HeatmapCellTip::tr("\n\u2016v W_O\u2016 of the key %1")
                    .arg(QString::number(norms.at(l, h, key), 'g', 4));
    return text + HeatmapCellTip::tr("\nweight \u00d7 value, share of the row %1")
                      .arg(QString::number(value, 'g', 6));
}

} // namespace

QString HeatmapCellTip::text(const ShownAttention& shown, int query, int key, double value) {
    const auto& qt = shown.queryTokens();
    const auto& kt = shown.keyTokens();
    const QString qText = query < int(qt.size()) ? tokenDisplayText(qt[std::size_t(query)]) : QString();
    const QString kText = key < int(kt.size()) ? tokenDisplayText(kt[std::size_t(key)]) : QString();
    // A decoder row is the token fed at that position, and its attention is what produces the next token:
    // in "el coche rojo" the row labelled "coche" is the one that looks at "red". Saying so here keeps the
    // usual alignment picture readable without relabelling the axis.
    QString produced;
    if (shown.rowsAreTarget() && query + 1 < int(qt.size()))
        produced = tr(" (produces \u201c%1\u201d)").arg(tokenDisplayText(qt[std::size_t(query) + 1]));
    const QString where = tr("query %1: \u201c%2\u201d%3\nkey %4: \u201c%5\u201d")
                              .arg(query)
                              .arg(qText)
                              .arg(produced)
                              .arg(key)
                              .arg(kText);
    if (!shown.showsValueWeighted())
        return where + tr("\nweight %1").arg(QString::number(value, 'g', 6));
    return where + QLatin1Char('\n') + valueWeightedText(shown, query, key, value);
}

} // namespace ui
