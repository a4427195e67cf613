#include "ui/views/GridTileTip.h"

#include "core/analysis/AttentionStats.h"
#include "ui/views/AttentionTiles.h"

#include <algorithm>
#include <cmath>

namespace ui {

QString GridTileTip::text(const ShownAttention& shown, int layer, int head,
                          const std::vector<core::HeadScores>& headScores, QSize tilePixels) {
    const auto* b = shown.block();
    if (b == nullptr || layer < 0 || layer >= b->layers || head < core::kMeanHead || head >= b->heads)
        return {};
    const core::HeadStats s = core::headStats(*b, layer, head);
    const QString who = head == core::kMeanHead
                            ? tr("Layer %1 \u00b7 mean over %2 heads").arg(layer).arg(b->heads)
                            : tr("Layer %1 \u00b7 head %2").arg(layer).arg(head);
    QString group;
    const int kv = shown.snapshot ? shown.snapshot->kvHeads : 0;
    if (kv > 0 && head >= 0 && shown.kind == core::AttentionKind::Decoder) {
        const int r = b->heads / kv, g = head / r;
        group =
            QLatin1Char('\n') + tr("Grouped-query attention: reads the keys and values of key/value head %1 "
                                   "of %2, shared by heads %3–%4")
                                    .arg(g)
                                    .arg(kv)
                                    .arg(g * r)
                                    .arg(g * r + r - 1);
    }
    // The entropy of uniform rows, for scale: in causal decoder attention query q sees only q + 1 keys.
    double uniform = std::log2(static_cast<double>(b->keys));
    if (shown.causal() && b->queries > 0) {
        uniform = 0.0;
        for (int q = 0; q < b->queries; ++q)
            uniform += std::log2(static_cast<double>(std::min(q + 1, b->keys)));
        uniform /= b->queries;
    }
    // In causal attention the first row sees only itself: its weight of 1 would be every head's maximum.
    const QString maxWeight =
        !shown.causal()  ? tr("Max weight: %1").arg(static_cast<double>(s.maxWeight), 0, 'f', 3)
        : b->queries > 1 ? tr("Max weight: %1 (the first row, which sees only itself, left out)")
                               .arg(static_cast<double>(s.maxWeightPastFirstRow), 0, 'f', 3)
                         : tr("Max weight: 1 (one row, which sees only itself)");
    QString tip = who + group + QLatin1Char('\n') +
                  tr("Entropy: %1 bits (uniform would be %2)")
                      .arg(s.meanEntropyBits, 0, 'f', 2)
                      .arg(uniform, 0, 'f', 2) +
                  QLatin1Char('\n') + maxWeight + QLatin1Char('\n') +
                  tr("Mean distance: %1 tokens").arg(s.meanDistance, 0, 'f', 2) + QLatin1Char('\n') +
                  tr("Weight on the first token: %1").arg(s.firstTokenWeight, 0, 'f', 3);
    // Queries and keys are the same positions only in self-attention.
    if (shown.selfAttention())
        tip += QLatin1Char('\n') + tr("Previous-token score: %1").arg(s.previousTokenScore, 0, 'f', 3);
    // The induction score needs a repeated sequence, which the typed text rarely is: it comes from the
    // model's own scoring on random tokens given twice.
    if (shown.kind == core::AttentionKind::Decoder && head != core::kMeanHead)
        for (const auto& h : headScores)
            if (h.layer == layer && h.head == head)
                tip += QLatin1Char('\n') +
                       tr("Induction score: %1 (on random tokens given twice; see the Heads page)")
                           .arg(h.inductionScore, 0, 'f', 3);
    // A pooled tile would otherwise pass for an average; saying it shows maxima explains why a tile can look
    // brighter than the detail view of the same head.
    const QSize image = AttentionTiles::imageSize(b->queries, b->keys, tilePixels);
    if (image != QSize(b->keys, b->queries)) {
        const auto upTo = [](int cells, int pixels) { return (cells + pixels - 1) / pixels; };
        tip +=
            QLatin1Char('\n') + tr("Each pixel shows the largest of the up to %1 queries \u00d7 %2 keys it "
                                   "covers, so a lone strong weight stays visible")
                                    .arg(upTo(b->queries, image.height()))
                                    .arg(upTo(b->keys, image.width()));
    }
    if (head != core::kMeanHead)
        tip += QLatin1Char('\n') +
               (shown.headsOff.off({shown.kind, layer, head})
                    ? tr("Switched off: its output is zeroed (Ctrl+click switches it back on)")
                    : tr("Ctrl+click switches this head off"));
    return tip;
}

} // namespace ui
