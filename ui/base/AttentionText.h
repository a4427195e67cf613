#pragma once
// The words every attention view uses for the kinds and for "nothing to show", in one place so the grid,
// the detail view and the selectors never disagree.

#include "core/run/AttentionSnapshot.h"

#include <QCoreApplication>
#include <QString>

namespace ui {

class AttentionText {
    Q_DECLARE_TR_FUNCTIONS(AttentionText)
public:
    /// "cross-attention", as in titles and tooltips.
    static QString kindName(core::AttentionKind kind) {
        switch (kind) {
        case core::AttentionKind::Encoder:
            return tr("encoder self-attention");
        case core::AttentionKind::Decoder:
            return tr("decoder self-attention");
        case core::AttentionKind::Cross:
            return tr("cross-attention");
        case core::AttentionKind::Pooling:
            return tr("attention pooling");
        }
        return {};
    }

    /// "Cross-attention", as in selectors.
    static QString kindLabel(core::AttentionKind kind) {
        switch (kind) {
        case core::AttentionKind::Encoder:
            return tr("Encoder self-attention");
        case core::AttentionKind::Decoder:
            return tr("Decoder self-attention (masked)");
        case core::AttentionKind::Cross:
            return tr("Cross-attention");
        case core::AttentionKind::Pooling:
            return tr("Attention pooling");
        }
        return {};
    }

    /// Why a view of this kind has nothing to draw.
    static QString emptyText(const core::AttentionSnapshot* snap, core::AttentionKind kind) {
        if (snap == nullptr)
            return tr("No attention yet: type a sentence to analyse");
        if ((kind == core::AttentionKind::Encoder || kind == core::AttentionKind::Cross) &&
            snap->srcTokens.empty())
            return kind == core::AttentionKind::Cross
                       ? tr("No cross-attention: this model has no encoder")
                       : tr("No encoder self-attention: this model has no encoder");
        return tr("No %1 in this step").arg(kindName(kind));
    }
};

} // namespace ui
