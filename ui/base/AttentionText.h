#pragma once
// The words every attention view uses for the kinds and for "nothing to show", in one place so the grid,
// the detail view and the selectors never disagree.

#include "core/run/AttentionSnapshot.h"
#include "core/run/Sampler.h"

#include <QCoreApplication>
#include <QLocale>
#include <QString>

namespace ui {

class AttentionText {
    Q_DECLARE_TR_FUNCTIONS(AttentionText)
public:
    /// A point of the residual stream (core's "embed", "3.attn", "3.cross", "3.mlp") said in full: "the
    /// embeddings", "layer 3 after self-attention", …
    static QString streamPoint(const std::string& point) {
        const auto dot = point.find('.');
        if (dot == std::string::npos)
            return tr("the embeddings");
        const auto layer = QString::fromStdString(point.substr(0, dot));
        const auto part = point.substr(dot + 1);
        return part == "attn"    ? tr("layer %1 after self-attention").arg(layer)
               : part == "cross" ? tr("layer %1 after cross-attention").arg(layer)
                                 : tr("layer %1 after its MLP").arg(layer);
    }
    /// The same on an axis: "embed", "3 attn".
    static QString streamPointLabel(const std::string& point) {
        const auto dot = point.find('.');
        if (dot == std::string::npos)
            return QString::fromStdString(point);
        return QStringLiteral("%1 %2").arg(QString::fromStdString(point.substr(0, dot)),
                                           QString::fromStdString(point.substr(dot + 1)));
    }
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

    /// Why a run decodes no further, as a caption says it ("finished: <eos>"), `length` the target's tokens
    /// then; empty while it may go on.
    static QString endingText(core::RunEnding ending, int64_t length) {
        switch (ending) {
        case core::RunEnding::Open:
            return {};
        case core::RunEnding::Eos:
            return tr("finished: the model decoded <eos>");
        case core::RunEnding::MaxLength:
            return tr("finished: the target reached max length (%1 tokens)").arg(length);
        case core::RunEnding::ReadsOnly:
            return tr("this model reads its text and decodes nothing");
        }
        return {};
    }

    /// What a long analysis says while it runs: "Analysing 1,001 tokens… (layer 3 of 12)".
    static QString analysingText(qulonglong tokens, int layersDone, int layers) {
        const QString count = QLocale(QLocale::English).toString(tokens);
        const QString what =
            tokens == 1 ? tr("Analysing 1 token\u2026") : tr("Analysing %1 tokens\u2026").arg(count);
        return layers > 0 ? tr("%1 (layer %2 of %3)").arg(what).arg(layersDone).arg(layers) : what;
    }

    /// A block of one query and one key: the token can only attend to itself.
    static QString singleTokenText(const QString& token) {
        return tr("Only \u201c%1\u201d so far: one query and one key, so it attends to itself with weight 1. "
                  "Step \u2192 (Ctrl+\u2192) decodes a token: watch the attention spread.")
            .arg(token);
    }

    /// Why a view of this kind has nothing to draw; `before` instead of the default before a first snapshot
    /// (what the view waits for: an analysis under way, a training run).
    static QString emptyText(const core::AttentionSnapshot* snap, core::AttentionKind kind,
                             const QString& before = QString()) {
        if (snap == nullptr)
            return before.isEmpty() ? tr("No attention yet: type a sentence to analyse") : before;
        if ((kind == core::AttentionKind::Encoder || kind == core::AttentionKind::Cross) &&
            snap->srcTokens.empty())
            return kind == core::AttentionKind::Cross
                       ? tr("No cross-attention: this model has no encoder")
                       : tr("No encoder self-attention: this model has no encoder");
        return tr("No %1 in this step").arg(kindName(kind));
    }
};

} // namespace ui
