#pragma once
// What the AttentionGrid tests share: their snapshots, where a weight lands in a tile, and pictures saved for
// a look when ATTNSCOPE_TEST_SHOTS names a folder.

#include "tests/support/SyntheticSnapshots.h"

#include <QByteArray>
#include <QImage>
#include <QRect>
#include <QWidget>

#include <memory>

inline std::shared_ptr<const core::AttentionSnapshot> gridSnapshot(int layers, int heads, int srcLen,
                                                                   int tgtLen) {
    return syntheticSnapshot(layers, heads, srcLen, tgtLen, 7, false);
}

/// Where cell (q, k) of a tile is painted: the centre of its scaled rectangle.
inline QPoint cellCentre(const QRect& tile, int queries, int keys, int q, int k) {
    return {tile.left() + int((k + 0.5) * tile.width() / keys),
            tile.top() + int((q + 0.5) * tile.height() / queries)};
}

/// The tile's own device pixels in a grab, which is as large as the widget times its device pixel ratio.
inline QImage tilePixels(const QImage& grab, const QRect& tile) {
    const qreal dpr = grab.devicePixelRatio();
    return grab.copy(QRectF(QPointF(tile.topLeft()) * dpr, QSizeF(tile.size()) * dpr).toRect());
}

inline void maybeSave(QWidget& w, const char* name) {
    const QByteArray dir = qgetenv("ATTNSCOPE_TEST_SHOTS");
    if (!dir.isEmpty())
        w.grab().save(QString::fromLocal8Bit(dir) + QLatin1Char('/') + QLatin1String(name));
}
