#include "ui/export/AttentionFigure.h"

#include "core/analysis/AttentionStats.h"
#include "core/analysis/MaxPool.h"
#include "ui/base/AttentionText.h"
#include "ui/base/TokenText.h"
#include "ui/export/Exporter.h"
#include "ui/views/AttentionTiles.h"

#include <QDir>

#include <algorithm>
#include <limits>

namespace ui {

namespace {

QStringList labels(const std::vector<core::Token>& tokens, int cells) {
    // A pooled side is labelled by the first token of each bin.
    QStringList out;
    const int n = static_cast<int>(tokens.size());
    for (int i = 0; i < cells; ++i)
        out << elided(tokenDisplayText(tokens[std::size_t(core::binStart(i, n, cells))]), 14);
    return out;
}

// One head (or the mean) pooled to at most `side` cells a side, masked cells NaN, coloured by the scale.
MatrixFigure matrix(const ShownAttention& shown, int layer, int head, int side, bool withLabels) {
    MatrixFigure m;
    const auto* b = shown.block();
    if (b == nullptr)
        return m;
    std::vector<float> own;
    const float* weights = nullptr;
    if (head == core::kMeanHead) {
        own = core::meanOverHeads(*b, layer);
        weights = own.data();
    } else {
        weights = b->head(layer, head, own);
    }
    m.rows = core::pooledLength(b->queries, side);
    m.cols = core::pooledLength(b->keys, side);
    m.values.resize(std::size_t(m.rows) * std::size_t(m.cols));
    const int keys = b->keys;
    core::maxPool(
        b->queries, keys, [&](int q) { return weights + std::size_t(q) * std::size_t(keys); }, m.rows, m.cols,
        m.values.data());
    if (shown.causal()) {
        const auto from = AttentionTiles::maskedFrom(m.rows, m.cols, b->queries, b->keys);
        for (int r = 0; r < m.rows; ++r)
            for (int c = from[std::size_t(r)]; c < m.cols; ++c)
                m.values[std::size_t(r) * std::size_t(m.cols) + std::size_t(c)] =
                    std::numeric_limits<float>::quiet_NaN();
    }
    m.map = shown.colorMap;
    if (shown.scale == ScaleMode::Log) {
        m.log = true;
        m.lo = kLogScaleFloor;
        m.hi = 1.0;
    } else if (shown.scale == ScaleMode::PerHead) {
        const auto [lo, hi] = core::informativeRange(weights, b->queries, b->keys, shown.causal());
        m.lo = lo;
        m.hi = hi > lo ? hi : lo + 1e-6;
    }
    if (withLabels) {
        m.rowLabels = labels(shown.queryTokens(), m.rows);
        m.colLabels = labels(shown.keyTokens(), m.cols);
        m.rowAxis = QObject::tr("query");
        m.colAxis = QObject::tr("key");
        // A figure coloured by weight × value must not pass for one of the weights.
        m.barLabel = shown.showsValueWeighted() ? QObject::tr("weight × ‖v W_O‖, share of the row")
                                                : QObject::tr("weight");
    }
    return m;
}

} // namespace

QString AttentionFigure::title(const ShownAttention& shown) {
    const QString which = shown.head == core::kMeanHead ? QObject::tr("mean over heads")
                                                        : QObject::tr("head %1").arg(shown.head);
    return QObject::tr("%1 · layer %2 · %3%4")
        .arg(AttentionText::kindName(shown.kind))
        .arg(shown.layer)
        .arg(which, shown.showsValueWeighted() ? QObject::tr(" · weight × value") : QString());
}

MatrixFigure AttentionFigure::head(const ShownAttention& shown) {
    const auto* b = shown.block();
    if (b == nullptr)
        return {};
    const int layer = std::clamp(shown.layer, 0, b->layers - 1);
    const int head = std::clamp(shown.head, core::kMeanHead, b->heads - 1);
    return matrix(shown, layer, head, kMaxSide, true);
}

bool AttentionFigure::save(const QString& name, const ShownAttention& shown,
                           const std::function<QCustomPlot*(const QString&)>& plot, const FigureStyle& style,
                           const QString& path, QString* error, const std::vector<int>& gridHeads) {
    const auto fail = [error](const QString& message) {
        if (error)
            *error = message;
        return false;
    };
    if (name == QLatin1String("candidates") || name == QLatin1String("curves")) {
        auto* p = plot ? plot(name) : nullptr;
        if (p == nullptr)
            return fail(name == QLatin1String("curves")
                            ? QObject::tr("this model has no positional table to draw")
                            : QObject::tr("there is no next-token chart to draw"));
        return FigureWriter::write(p, style, path, error);
    }
    if (shown.block() == nullptr)
        return fail(QObject::tr("there is no %1 attention to draw").arg(AttentionText::kindName(shown.kind)));
    if (name == QLatin1String("heatmap"))
        return FigureWriter::write(head(shown), style, path, error);
    if (name == QLatin1String("grid"))
        return FigureWriter::write(grid(shown, gridHeads), style, path, error);
    return fail(QObject::tr("unknown figure '%1' (heatmap, grid, candidates or curves)").arg(name));
}

int AttentionFigure::saveAllHeads(const ShownAttention& shown, const QString& dir, const QString& format,
                                  const FigureStyle& style, const std::function<bool(int, int)>& progress,
                                  QString* error) {
    const auto* b = shown.block();
    if (b == nullptr) {
        if (error)
            *error =
                QObject::tr("there is no %1 attention to export").arg(AttentionText::kindName(shown.kind));
        return -1;
    }
    if (!QDir().mkpath(dir)) {
        if (error)
            *error = QObject::tr("cannot create the folder %1").arg(dir);
        return -1;
    }
    const QString kind = QString::fromLatin1(core::toString(shown.kind));
    const int heads = b->heads > 1 ? b->heads + 1 : 1; // and the mean
    const int total = b->layers * heads + 1;
    int done = 0;
    for (int l = 0; l < b->layers; ++l)
        for (int h = 0; h < heads; ++h) {
            ShownAttention one = shown;
            one.layer = l;
            one.head = h < b->heads ? h : core::kMeanHead;
            const QString name =
                QStringLiteral("%1-L%2-%3.%4")
                    .arg(kind)
                    .arg(l)
                    .arg(h < b->heads ? QStringLiteral("H%1").arg(h) : QStringLiteral("mean"))
                    .arg(format);
            FigureStyle titled = style;
            if (!titled.title.isEmpty())
                titled.title = title(one);
            if (!FigureWriter::write(head(one), titled, QDir(dir).filePath(name), error))
                return -1;
            if (progress && !progress(++done, total))
                return done;
        }
    if (!Exporter::saveKindCsv(*shown.snapshot, shown.kind,
                               QDir(dir).filePath(kind + QStringLiteral("-all-heads.csv")), error))
        return -1;
    ++done;
    if (progress)
        progress(done, total);
    return done;
}

bool AttentionFigure::parseHeads(const QString& text, int heads, std::vector<int>* out, QString* error) {
    out->clear();
    const QString t = text.trimmed();
    if (t.isEmpty() || t == QLatin1String("all"))
        return true;
    for (const auto& part : t.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const QString p = part.trimmed();
        bool ok = false;
        const int h = p == QLatin1String("mean") ? core::kMeanHead : p.toInt(&ok);
        if (p != QLatin1String("mean") && (!ok || h < 0 || h >= heads)) {
            if (error)
                *error =
                    QObject::tr("head '%1': this kind has heads 0–%2 and the mean").arg(p).arg(heads - 1);
            return false;
        }
        out->push_back(h);
    }
    return true;
}

GridFigure AttentionFigure::grid(const ShownAttention& shown, const std::vector<int>& heads) {
    GridFigure g;
    const auto* b = shown.block();
    if (b == nullptr)
        return g;
    std::vector<int> columns = heads;
    if (columns.empty()) {
        for (int h = 0; h < b->heads; ++h)
            columns.push_back(h);
        if (b->heads > 1)
            columns.push_back(core::kMeanHead);
    }
    for (int l = 0; l < b->layers; ++l)
        g.rowLabels << QStringLiteral("L%1").arg(l);
    for (const int h : columns)
        g.colLabels << (h == core::kMeanHead ? QObject::tr("mean") : QStringLiteral("H%1").arg(h));
    for (int l = 0; l < b->layers; ++l)
        for (const int h : columns)
            g.tiles.push_back(matrix(shown, l, h, kMaxTileSide, false));
    return g;
}

} // namespace ui
